// Package dialect holds how each SQL engine spells what the planner emits:
// quoting, literals, date truncation, real division, casts and the functions
// whose names differ between engines. It is pure text generation, so the
// compiler can plan (and golden tests can check) SQL for every engine
// without linking any driver; engine packages pick their Dialect.
package dialect

// Grain is a time grain of a time dimension.
type Grain string

// Time grains, finest first. Week is ISO (Monday start).
const (
	Hour    Grain = "hour"
	Day     Grain = "day"
	Week    Grain = "week"
	Month   Grain = "month"
	Quarter Grain = "quarter"
	Year    Grain = "year"
)

// Grains lists every Grain in order.
var Grains = []Grain{Hour, Day, Week, Month, Quarter, Year}

// Dialect renders SQL fragments for one engine. Arguments named x, l, r are
// already-rendered SQL expressions; every method returns SQL text.
type Dialect interface {
	// Name is the engine name: "duckdb", "postgres", "trino".
	Name() string
	// QuoteIdent always quotes (double quotes, embedded quotes doubled).
	QuoteIdent(name string) string
	// QuoteString renders a string literal, escaping so that no value can
	// end the literal early.
	QuoteString(s string) string
	// TypeName maps a canonical cast type (VARCHAR, BIGINT, INTEGER,
	// DECIMAL, DOUBLE, BOOLEAN, DATE, TIMESTAMP, TIME) to the engine's name.
	TypeName(canonical string) string
	// Divide is real division with NULL on a zero divisor.
	Divide(l, r string) string
	// DateTrunc truncates x to grain; Week starts on Monday (ISO).
	DateTrunc(g Grain, x string) string
	// AtTimeZone converts a timestamp-with-time-zone x to local wall time in
	// the IANA zone tz (a quoted literal is produced inside).
	AtTimeZone(x, tz string) string
	// FromZone reads a naive timestamp x as wall time in the IANA zone tz,
	// giving the instant (a timestamp with time zone) AtTimeZone converts;
	// DST gaps and overlaps resolve as the engine does.
	FromZone(x, tz string) string
	// Func renders a call of an Ossie function whose spelling differs on this
	// engine (YEAR, DATEADD, DATEDIFF, MEDIAN, IFF, ...). name is canonical
	// upper case; PERCENTILE_CONT/DISC get (fraction, ordered value); the
	// operators || and % come as "||" and "%" with their two operands.
	// ok=false means the generic NAME(args) spelling is right.
	Func(name string, args []string) (sql string, ok bool)
	// Support says whether this engine computes name(args) exactly,
	// approximately or not at all (args rendered as for Func; TRY_CAST gets
	// the value and the engine's type name). Render refuses Unsupported
	// calls with an *UnsupportedError, which compiling for this engine
	// reports as OSS3008.
	Support(name string, args []string) Support
	// FileSource renders a data file (Parquet, CSV) as a FROM item; ok=false
	// when the engine cannot read files directly.
	FileSource(path string) (sql string, ok bool)
	// LimitOffset renders the trailing LIMIT/OFFSET clause (limit < 0: none).
	LimitOffset(limit, offset int) string
}
