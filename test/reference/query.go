package reference

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Query is the HTTP query body as the reference reads it (the JSON of
// docs/server.md and compiler/plan.Query, decoded here by its own type).
type Query struct {
	Metrics    []string    `json:"metrics"`
	Dimensions []Dimension `json:"dimensions,omitempty"`
	Filters    []Filter    `json:"filters,omitempty"`
	OrderBy    []Order     `json:"order_by,omitempty"`
	Limit      *int        `json:"limit,omitempty"`
	Offset     int         `json:"offset,omitempty"`
	Timezone   string      `json:"timezone,omitempty"`
	// Through names whose rows a query without metrics lists.
	Through string `json:"through,omitempty"`
	// Total is the server's answer option: the row count without limit
	// and offset.
	Total bool `json:"total,omitempty"`
}

// Dimension is a group-by member, written as "dataset.field" or as an
// object.
type Dimension struct {
	Field     string `json:"field"`
	Grain     string `json:"grain,omitempty"`
	WeekStart string `json:"week_start,omitempty"`
	// Via names the relationship to join the member's dataset along
	// (query-semantics.md, Choosing a path).
	Via string `json:"via,omitempty"`
}

// UnmarshalJSON accepts the string and the object form.
func (d *Dimension) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		*d = Dimension{Field: s}
		return nil
	}
	type plain Dimension
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*d = Dimension(p)
	return nil
}

// MarshalJSON writes the string form when there is no grain.
func (d Dimension) MarshalJSON() ([]byte, error) {
	if d.Grain == "" && d.WeekStart == "" && d.Via == "" {
		return json.Marshal(d.Field)
	}
	type plain Dimension
	return json.Marshal(plain(d))
}

// Name is the answer column: dataset.field or dataset.field.grain, then
// @via when the dimension names its path.
func (d Dimension) Name() string {
	n := d.Field
	if d.Grain != "" {
		n += "." + d.Grain
	}
	if d.Via != "" {
		n += "@" + d.Via
	}
	return n
}

// Filter is a dimension filter (Field) or a metric filter (Metric).
type Filter struct {
	Field  string `json:"field,omitempty"`
	Metric string `json:"metric,omitempty"`
	Via    string `json:"via,omitempty"` // as Dimension.Via
	Op     string `json:"op"`
	Values []any  `json:"values,omitempty"`
}

// Order is one order_by key.
type Order struct {
	Key string `json:"key"`
	Dir string `json:"dir,omitempty"`
}

// ParseQuery decodes a query body; numbers stay json.Number.
func ParseQuery(body []byte) (*Query, error) {
	var q Query
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&q); err != nil {
		return nil, fmt.Errorf("query body: %w", err)
	}
	return &q, nil
}

// JSON encodes q as the HTTP query body.
func (q *Query) JSON() []byte {
	b, err := json.Marshal(q)
	if err != nil {
		panic(err) // only plain values: cannot fail
	}
	return b
}
