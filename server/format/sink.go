// Package format holds the shape of a streamed answer (AnswerHead, rows,
// AnswerTail, the AnswerSink that receives them, ResultColumn) and its
// encodings over HTTP: JSON, CSV and the Arrow IPC stream, chosen from
// the Accept header (negotiate). It imports only the Ossie document types
// and the Arrow library, never the query path, which hands it rows.
package format

import (
	"strconv"
	"time"
)

// ResultColumn describes one answer column. Name is the query member
// (`dataset.field`, `dataset.field.grain` or a metric name); Kind is
// "dimension" or "metric"; Type is the Ossie datatype of the values as
// returned (String, Integer, Decimal, Float, Boolean, Date, Time, DateTime,
// DateTimeTz, Opaque); EngineType is the engine's own type name.
type ResultColumn struct {
	Name       string `json:"name"`
	Kind       string `json:"kind"`
	Type       string `json:"type"`
	EngineType string `json:"engine_type,omitempty"`
	Grain      string `json:"grain,omitempty"`
	// Timezone is the zone a time dimension's values are wall time in when
	// one was applied (the query zone); StoredTimezone the zone a naive
	// DateTime column's instants were read in (docs/query-semantics.md).
	Timezone       string `json:"timezone,omitempty"`
	StoredTimezone string `json:"stored_timezone,omitempty"`
}

// AnswerHead is what is known before the first row.
type AnswerHead struct {
	Model        string
	ModelVersion string
	Columns      []ResultColumn
	// Cached: the answer comes from the result cache, computed Age ago.
	Cached bool
	Age    time.Duration
}

// AnswerTail is what is known after the last row.
type AnswerTail struct {
	RowCount  int
	Truncated bool
	// Total is the row count of the whole answer without limit and
	// offset, when the query asked for it (`total: true`).
	Total *int64
}

// AnswerSink receives one answer: begin once, row per row (the slice is
// reused by the caller), end once. A sink error ends the answer.
type AnswerSink interface {
	Begin(h *AnswerHead) error
	Row(r []any) error
	End(t *AnswerTail) error
}

// ageSeconds is the HTTP Age header value of a cached answer.
func ageSeconds(d time.Duration) string { return strconv.FormatInt(int64(d/time.Second), 10) }
