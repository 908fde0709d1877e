//go:build duckdb_arrow

package duckdb

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"math/big"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	duckdb "github.com/duckdb/duckdb-go/v2"
)

// columnReader binds one record batch's array of a column to a reader of
// its i-th value, converted: the column's converter (convert.go) applied
// to what the driver's row path hands over for the same DuckDB value (nil
// for NULL, time.Time in UTC, *big.Int, duckdb.Decimal, duckdb.Interval,
// ...), so both paths make the same answer of it. Values never point into
// the batch, which DuckDB frees when the next one is read.
type columnReader func(arr arrow.Array) func(i int) any

// arrowReader returns the reader of a scalar column whose DuckDB type is
// typ and whose values conv converts; ok is false for a type whose values
// the driver's rows give in a form not built here (TIMETZ, BIT, UNION;
// nested types are read by fieldReader). typ comes from duckTypeName,
// which accepts only the Arrow form DuckDB gives that type under
// losslessArrow, so the array is never checked again here.
func arrowReader(typ string, conv func(any) any) (columnReader, bool) {
	read := scalarReader(typ, conv)
	if read == nil {
		return nil, false
	}
	return nullable(read), true
}

// nullable is read with NULL read as nil, on the storage of an extension
// array.
func nullable(read columnReader) columnReader {
	return func(arr arrow.Array) func(int) any {
		if ext, ok := arr.(array.ExtensionArray); ok {
			arr = ext.Storage()
		}
		get := read(arr)
		if arr.NullN() == 0 {
			return get
		}
		return func(i int) any {
			if arr.IsNull(i) {
				return nil
			}
			return get(i)
		}
	}
}

// scalarReader is arrowReader's reader of non-NULL values; nil when typ
// is not read here.
func scalarReader(typ string, conv func(any) any) columnReader {
	if read, ok := plainReaders[typ]; ok {
		return convertedBy(read, conv)
	}
	switch typ {
	case "VARCHAR":
		return textOnce(conv)
	case "ENUM":
		return enumOnce(conv)
	case "DATE":
		return daysOnce(conv)
	}
	if strings.HasPrefix(typ, "DECIMAL(") {
		return convertedBy(decimal, conv)
	}
	return nil
}

// convertedBy is read with each value converted by conv.
func convertedBy(read columnReader, conv func(any) any) columnReader {
	return func(arr arrow.Array) func(int) any {
		get := read(arr)
		return func(i int) any { return conv(get(i)) }
	}
}

// plainReaders read the DuckDB types, by name, whose values are read
// the same way whatever their place in an answer.
var plainReaders = map[string]columnReader{
	"BOOLEAN":      bool8,
	"TINYINT":      number[int8],
	"SMALLINT":     number[int16],
	"INTEGER":      number[int32],
	"BIGINT":       number[int64],
	"UTINYINT":     number[uint8],
	"USMALLINT":    number[uint16],
	"UINTEGER":     number[uint32],
	"UBIGINT":      number[uint64],
	"FLOAT":        number[float32],
	"DOUBLE":       number[float64],
	"HUGEINT":      int128(true),
	"UHUGEINT":     int128(false),
	"UUID":         uuidBytes,
	"JSON":         jsonValue,
	"BLOB":         blob,
	"INTERVAL":     interval,
	"TIME":         clock,
	"TIMESTAMP":    instant(time.UnixMicro),
	"TIMESTAMP_S":  instant(func(v int64) time.Time { return time.Unix(v, 0) }),
	"TIMESTAMP_MS": instant(time.UnixMilli),
	"TIMESTAMP_NS": instant(func(v int64) time.Time { return time.Unix(0, v) }),
	"TIMESTAMPTZ":  instant(time.UnixMicro),
}

// bool8 reads BOOLEAN in its arrow.bool8 form: a byte, 0 for false.
func bool8(arr arrow.Array) func(int) any {
	values := arr.(*array.Int8).Int8Values()
	return func(i int) any { return values[i] != 0 }
}

// number reads a fixed-width number as the Go type the driver gives it.
func number[T int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64 | float32 | float64](arr arrow.Array) func(int) any {
	values := arr.(interface{ Values() []T }).Values()
	return func(i int) any { return values[i] }
}

// int128 reads HUGEINT (signed) or UHUGEINT as the driver does, a
// *big.Int; int64 when it fits, which engine.Value makes of such a
// *big.Int anyway. DuckDB's opaque Arrow form is its in-memory layout:
// the low 64 bits, then the high 64 bits, each little-endian.
func int128(signed bool) columnReader {
	return func(arr arrow.Array) func(int) any {
		a := arr.(*array.FixedSizeBinary)
		return func(i int) any {
			b := a.Value(i)
			lo, hi := binary.LittleEndian.Uint64(b[:8]), binary.LittleEndian.Uint64(b[8:])
			if (hi == 0 && lo>>63 == 0) || (signed && hi == math.MaxUint64 && lo>>63 == 1) {
				return int64(lo)
			}
			n := new(big.Int).SetUint64(hi)
			n.Lsh(n, 64).Or(n, new(big.Int).SetUint64(lo))
			if signed && hi>>63 == 1 {
				n.Sub(n, twoTo128)
			}
			return n
		}
	}
}

var twoTo128 = new(big.Int).Lsh(big.NewInt(1), 128)

// uuidBytes reads UUID as the driver does: its 16 bytes, big-endian (the
// canonical order of arrow.uuid), which the UUID converter makes text.
func uuidBytes(arr arrow.Array) func(int) any {
	a := arr.(*array.FixedSizeBinary)
	return func(i int) any { return bytes.Clone(a.Value(i)) }
}

// jsonValue reads JSON as the driver does: the text decoded by
// encoding/json into any. DuckDB's JSON is valid by construction; text
// that is not is handed over as text.
func jsonValue(arr arrow.Array) func(int) any {
	a := arr.(*array.String)
	return func(i int) any {
		var v any
		if err := json.Unmarshal([]byte(a.Value(i)), &v); err != nil {
			return strings.Clone(a.Value(i))
		}
		return v
	}
}

// enumOnce reads ENUM as the driver does, its value's text, each
// dictionary entry converted once per record batch.
func enumOnce(conv func(any) any) columnReader {
	return func(arr arrow.Array) func(int) any {
		a := arr.(*array.Dictionary)
		dict := a.Dictionary().(*array.String)
		seen := make([]any, dict.Len())
		return func(i int) any {
			k := a.GetValueIndex(i)
			if seen[k] == nil {
				seen[k] = conv(strings.Clone(dict.Value(k)))
			}
			return seen[k]
		}
	}
}

// decimal reads DECIMAL(width,scale) as the driver's duckdb.Decimal, so
// that its conversion to float64 rounds the same way; width and scale
// are the array's precision and scale.
func decimal(arr arrow.Array) func(int) any {
	a := arr.(*array.Decimal128)
	t := a.DataType().(*arrow.Decimal128Type)
	width, scale := uint8(t.Precision), uint8(t.Scale)
	return func(i int) any {
		return duckdb.Decimal{Width: width, Scale: scale, Value: a.Value(i).BigInt()}
	}
}

// memoSize bounds the distinct values one column keeps the conversion of.
const memoSize = 4096

// textOnce reads VARCHAR, copied out of the batch. A large answer repeats
// few strings in a column (origin and destination codes): each string
// seen is copied, converted and boxed once, until memoSize distinct ones
// were seen.
func textOnce(conv func(any) any) columnReader {
	seen := map[string]any{}
	return func(arr arrow.Array) func(int) any {
		a := arr.(*array.String)
		return func(i int) any {
			s := a.Value(i)
			if v, ok := seen[s]; ok {
				return v
			}
			c := strings.Clone(s) // the key too: s is DuckDB's memory
			v := conv(c)
			if len(seen) < memoSize {
				seen[c] = v
			}
			return v
		}
	}
}

// daysOnce reads DATE as the driver does, midnight UTC of the day, each
// day converted once (until memoSize distinct ones were seen): a large
// answer repeats few days (a week or month column), and making a
// time.Time of each value and its text was about 7 % of the server's
// CPU on the 84k-row answer by week.
func daysOnce(conv func(any) any) columnReader {
	seen := map[arrow.Date32]any{}
	return func(arr arrow.Array) func(int) any {
		a := arr.(*array.Date32)
		return func(i int) any {
			d := a.Value(i)
			if v, ok := seen[d]; ok {
				return v
			}
			v := conv(time.Unix(int64(d)*86400, 0).UTC())
			if len(seen) < memoSize {
				seen[d] = v
			}
			return v
		}
	}
}

func blob(arr arrow.Array) func(int) any {
	a := arr.(*array.Binary)
	return func(i int) any { return bytes.Clone(a.Value(i)) }
}

// clock reads TIME as the driver does: the time of day on 0001-01-01 UTC.
func clock(arr arrow.Array) func(int) any {
	a := arr.(*array.Time64)
	return func(i int) any {
		t := time.UnixMicro(int64(a.Value(i))).UTC()
		return time.Date(1, time.January, 1, t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC)
	}
}

// instant reads a timestamp of the unit at reads as the driver does: the
// instant in UTC.
func instant(at func(int64) time.Time) columnReader {
	return func(arr arrow.Array) func(int) any {
		a := arr.(*array.Timestamp)
		return func(i int) any { return at(int64(a.Value(i))).UTC() }
	}
}

// interval reads INTERVAL as the driver's duckdb.Interval; DuckDB's
// microseconds are whole in Arrow's nanoseconds.
func interval(arr arrow.Array) func(int) any {
	a := arr.(*array.MonthDayNanoInterval)
	return func(i int) any {
		v := a.Value(i)
		return duckdb.Interval{Months: v.Months, Days: v.Days, Micros: v.Nanoseconds / 1000}
	}
}
