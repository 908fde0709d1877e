package trinotest

import (
	"encoding/base64"
	"fmt"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"time"

	duckdb "github.com/duckdb/duckdb-go/v2"
)

// column is a result column as the protocol sends it (io.trino.client.Column).
type column struct {
	Name          string    `json:"name"`
	Type          string    `json:"type"`
	TypeSignature signature `json:"typeSignature"`
}

type signature struct {
	RawType   string     `json:"rawType"`
	Arguments []argument `json:"arguments"`
}

type argument struct {
	Kind  string `json:"kind"`
	Value any    `json:"value"`
}

func long(n int64) argument { return argument{Kind: "LONG", Value: n} }

var decimalType = regexp.MustCompile(`^DECIMAL\((\d+),(\d+)\)$`)

// columnOf maps a DuckDB result type onto the Trino type that Trino
// would report for the same expression: integer sums (HUGEINT) are BIGINT,
// TIMESTAMP has precision 6, unknown types travel as VARCHAR text.
func columnOf(name, duckType string) column {
	c := func(typ, raw string, args ...argument) column {
		if args == nil {
			args = []argument{}
		}
		return column{Name: name, Type: typ, TypeSignature: signature{RawType: raw, Arguments: args}}
	}
	switch duckType {
	case "BOOLEAN":
		return c("boolean", "boolean")
	case "TINYINT", "UTINYINT":
		return c("tinyint", "tinyint")
	case "SMALLINT", "USMALLINT":
		return c("smallint", "smallint")
	case "INTEGER", "UINTEGER":
		return c("integer", "integer")
	case "BIGINT", "UBIGINT", "HUGEINT", "UHUGEINT":
		return c("bigint", "bigint")
	case "FLOAT":
		return c("real", "real")
	case "DOUBLE":
		return c("double", "double")
	case "DATE":
		return c("date", "date")
	case "TIME":
		return c("time(6)", "time", long(6))
	case "TIMESTAMP", "TIMESTAMP_NS", "TIMESTAMP_MS", "TIMESTAMP_S":
		return c("timestamp(6)", "timestamp", long(6))
	case "TIMESTAMPTZ", "TIMESTAMP WITH TIME ZONE":
		return c("timestamp(6) with time zone", "timestamp with time zone", long(6))
	case "BLOB":
		return c("varbinary", "varbinary")
	}
	if m := decimalType.FindStringSubmatch(duckType); m != nil {
		p, _ := strconv.ParseInt(m[1], 10, 64)
		s, _ := strconv.ParseInt(m[2], 10, 64)
		return c(fmt.Sprintf("decimal(%d,%d)", p, s), "decimal", long(p), long(s))
	}
	return c("varchar", "varchar", long(math.MaxInt32))
}

// encode renders one DuckDB value as Trino's JSON encoding of col's type.
func encode(col column, v any) any {
	if v == nil {
		return nil
	}
	switch col.TypeSignature.RawType {
	case "boolean":
		return v
	case "tinyint", "smallint", "integer", "bigint":
		if b, ok := v.(*big.Int); ok {
			return json64(b)
		}
		return v
	case "real", "double":
		f, _ := v.(float64)
		if x, ok := v.(float32); ok {
			f = float64(x)
		}
		switch {
		case math.IsNaN(f):
			return "NaN"
		case math.IsInf(f, 1):
			return "Infinity"
		case math.IsInf(f, -1):
			return "-Infinity"
		}
		return f
	case "decimal":
		if d, ok := v.(duckdb.Decimal); ok {
			return decimalText(d)
		}
	case "date":
		if t, ok := v.(time.Time); ok {
			return t.Format(time.DateOnly)
		}
	case "time":
		if t, ok := v.(time.Time); ok {
			return t.Format("15:04:05.000000")
		}
	case "timestamp":
		if t, ok := v.(time.Time); ok {
			return t.Format("2006-01-02 15:04:05.000000")
		}
	case "timestamp with time zone":
		if t, ok := v.(time.Time); ok {
			return t.UTC().Format("2006-01-02 15:04:05.000000") + " UTC"
		}
	case "varbinary":
		if b, ok := v.([]byte); ok {
			return base64.StdEncoding.EncodeToString(b)
		}
	}
	if s, ok := v.(string); ok {
		return s
	}
	return fmt.Sprint(v)
}

func json64(b *big.Int) any {
	if b.IsInt64() {
		return b.Int64()
	}
	return b.String()
}

// decimalText is the exact decimal text Trino sends for DECIMAL values.
func decimalText(d duckdb.Decimal) string {
	s := new(big.Int).Abs(d.Value).String()
	sign := ""
	if d.Value.Sign() < 0 {
		sign = "-"
	}
	if d.Scale == 0 {
		return sign + s
	}
	sc := int(d.Scale)
	if len(s) <= sc {
		s = strings.Repeat("0", sc-len(s)+1) + s
	}
	return sign + s[:len(s)-sc] + "." + s[len(s)-sc:]
}

// errorRules map DuckDB diagnostics onto the Trino error Trino raises for
// the same failure (io.trino.spi.StandardErrorCode names).
var errorRules = []struct {
	re   *regexp.Regexp
	name string
	code int
	typ  string
}{
	{regexp.MustCompile(`Catalog Error: (Table|View|Table Function) with name .* does not exist`), "TABLE_NOT_FOUND", 46, "USER_ERROR"},
	{regexp.MustCompile(`Catalog Error: Schema with name .* does not exist`), "SCHEMA_NOT_FOUND", 36, "USER_ERROR"},
	{regexp.MustCompile(`Catalog Error: Catalog .* does not exist|Binder Error: Catalog .* does not exist`), "CATALOG_NOT_FOUND", 44, "USER_ERROR"},
	{regexp.MustCompile(`Binder Error: .*(Referenced column|column) .* not found`), "COLUMN_NOT_FOUND", 47, "USER_ERROR"},
	{regexp.MustCompile(`Conversion Error`), "INVALID_CAST_ARGUMENT", 9, "USER_ERROR"},
	{regexp.MustCompile(`Parser Error`), "SYNTAX_ERROR", 1, "USER_ERROR"},
	{regexp.MustCompile(`Catalog Error: Scalar Function with name .* does not exist`), "FUNCTION_NOT_FOUND", 6, "USER_ERROR"},
}

func toError(err error) *Error {
	msg := err.Error()
	for _, r := range errorRules {
		if r.re.MatchString(msg) {
			return &Error{Message: msg, ErrorCode: r.code, ErrorName: r.name, ErrorType: r.typ}
		}
	}
	return &Error{Message: msg, ErrorCode: 0, ErrorName: "GENERIC_USER_ERROR", ErrorType: "USER_ERROR"}
}

func internalError(err error) *Error {
	return &Error{Message: err.Error(), ErrorCode: 65536, ErrorName: "GENERIC_INTERNAL_ERROR", ErrorType: "INTERNAL_ERROR"}
}
