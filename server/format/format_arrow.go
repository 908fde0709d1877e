package format

import (
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ossie-dev/ossie/api/ossie"
)

// arrowBatchRows is the number of rows per Arrow record batch: large
// enough for columnar readers, small enough to keep the server's memory
// flat.
const arrowBatchRows = 8192

// arrowSink writes the answer as an Arrow IPC stream (the Arrow columnar
// format's streaming flavour: schema, then record batches of up to
// arrowBatchRows rows, then the end-of-stream marker). Column types follow
// the Ossie datatypes of ResultColumn.Type:
//
//	Integer → int64; Float, Decimal → float64 (Decimal values are already
//	converted to float64 by the engines); Boolean → bool; Date → date32;
//	DateTime → timestamp[us]; DateTimeTz → timestamp[us, UTC];
//	String, Time, Opaque → utf8 (Time as "15:04:05[.ffffff]", Opaque as
//	JSON text).
//
// The schema's metadata holds ossie.model and ossie.model_version; each
// field's metadata holds ossie.kind and ossie.type. Truncation, row count
// and total are the Ossie-Truncated, Ossie-Row-Count and Ossie-Total
// headers or trailers (respond.go).
type arrowSink struct {
	w      http.ResponseWriter
	out    *httpOut
	schema *arrow.Schema
	build  *array.RecordBuilder
	ipc    *ipc.Writer
	append []func(array.Builder, any) error
	rows   int
}

func (a *arrowSink) Begin(h *AnswerHead) error {
	a.out = newHTTPOut(a.w, MediaArrow, h)
	fields := make([]arrow.Field, len(h.Columns))
	a.append = make([]func(array.Builder, any) error, len(h.Columns))
	for i, c := range h.Columns {
		t, app := ArrowType(ossie.Datatype(c.Type))
		fields[i] = arrow.Field{Name: c.Name, Type: t, Nullable: true,
			Metadata: arrow.NewMetadata([]string{"ossie.kind", "ossie.type"}, []string{c.Kind, c.Type})}
		a.append[i] = app
	}
	md := arrow.NewMetadata([]string{"ossie.model", "ossie.model_version"}, []string{h.Model, h.ModelVersion})
	a.schema = arrow.NewSchema(fields, &md)
	a.build = array.NewRecordBuilder(memory.DefaultAllocator, a.schema)
	a.build.Reserve(arrowBatchRows)
	a.ipc = ipc.NewWriter(a.out.buf, ipc.WithSchema(a.schema))
	return nil
}

func (a *arrowSink) Row(r []any) error {
	for i, v := range r {
		b := a.build.Field(i)
		if v == nil {
			b.AppendNull()
			continue
		}
		if err := a.append[i](b, v); err != nil {
			return fmt.Errorf("column %s: %w", a.schema.Field(i).Name, err)
		}
	}
	if a.rows++; a.rows == arrowBatchRows {
		return a.flush()
	}
	return nil
}

func (a *arrowSink) flush() error {
	rec := a.build.NewRecordBatch()
	defer rec.Release()
	a.rows = 0
	// Sized once per batch instead of grown by doubling as rows come.
	a.build.Reserve(arrowBatchRows)
	return a.ipc.Write(rec)
}

func (a *arrowSink) End(t *AnswerTail) error {
	defer a.build.Release()
	// An empty answer still carries one empty batch: readers see the
	// schema and no rows.
	if a.rows > 0 || t.RowCount == 0 {
		if err := a.flush(); err != nil {
			return err
		}
	}
	if err := a.ipc.Close(); err != nil {
		return err
	}
	return a.out.finish(t)
}

// ArrowType maps an Ossie datatype to the Arrow type of its column and the
// function appending one non-null converted value to its builder.
func ArrowType(t ossie.Datatype) (arrow.DataType, func(array.Builder, any) error) {
	switch t {
	case ossie.TypeInteger:
		return arrow.PrimitiveTypes.Int64, func(b array.Builder, v any) error {
			x, ok := v.(int64)
			if !ok {
				return fmt.Errorf("value %v does not fit a 64-bit integer", v)
			}
			b.(*array.Int64Builder).Append(x)
			return nil
		}
	case ossie.TypeFloat, ossie.TypeDecimal:
		return arrow.PrimitiveTypes.Float64, func(b array.Builder, v any) error {
			switch x := v.(type) {
			case float64:
				b.(*array.Float64Builder).Append(x)
			case int64:
				b.(*array.Float64Builder).Append(float64(x))
			case string: // an exact decimal beyond int64, as text
				f, err := strconv.ParseFloat(x, 64)
				if err != nil {
					return fmt.Errorf("value %q is not a number", x)
				}
				b.(*array.Float64Builder).Append(f)
			default:
				return fmt.Errorf("value %v is not a number", v)
			}
			return nil
		}
	case ossie.TypeBoolean:
		return arrow.FixedWidthTypes.Boolean, func(b array.Builder, v any) error {
			x, ok := v.(bool)
			if !ok {
				return fmt.Errorf("value %v is not a boolean", v)
			}
			b.(*array.BooleanBuilder).Append(x)
			return nil
		}
	case ossie.TypeDate:
		return arrow.FixedWidthTypes.Date32, func(b array.Builder, v any) error {
			switch x := v.(type) {
			case time.Time:
				b.(*array.Date32Builder).Append(arrow.Date32FromTime(x))
			case string:
				d, err := parseDate32(x)
				if err != nil {
					return fmt.Errorf("value %q is not a date", x)
				}
				b.(*array.Date32Builder).Append(d)
			default:
				return fmt.Errorf("value %v is not a date", v)
			}
			return nil
		}
	case ossie.TypeDateTime, ossie.TypeDateTimeTz:
		tt := &arrow.TimestampType{Unit: arrow.Microsecond}
		if t == ossie.TypeDateTimeTz {
			tt.TimeZone = "UTC"
		}
		return tt, func(b array.Builder, v any) error {
			x, ok := v.(time.Time)
			if !ok {
				return fmt.Errorf("value %v is not a timestamp", v)
			}
			b.(*array.TimestampBuilder).Append(arrow.Timestamp(x.UnixMicro()))
			return nil
		}
	}
	return arrow.BinaryTypes.String, func(b array.Builder, v any) error {
		if s, ok := v.(string); ok {
			b.(*array.StringBuilder).Append(s)
			return nil
		}
		text, err := appendJSONValue(nil, v)
		b.(*array.StringBuilder).Append(string(text))
		return err
	}
}

// parseDate32 reads a date as the engines give it, "2006-01-02", with a
// fast path for four-digit years; anything else goes through time.Parse.
func parseDate32(s string) (arrow.Date32, error) {
	if len(s) == len(time.DateOnly) && s[4] == '-' && s[7] == '-' {
		y, ok1 := digits(s[:4])
		m, ok2 := digits(s[5:7])
		d, ok3 := digits(s[8:])
		if ok1 && ok2 && ok3 && m >= 1 && m <= 12 && d >= 1 && d <= daysIn(y, m) {
			return arrow.Date32(daysFromCivil(y, m, d)), nil
		}
	}
	t, err := time.Parse(time.DateOnly, s)
	return arrow.Date32FromTime(t), err
}

// daysIn is the number of days of month m (1-12) of year y, proleptic
// Gregorian.
func daysIn(y, m int) int {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// daysFromCivil is the number of days from 1970-01-01 to y-m-d (y >= 0),
// proleptic Gregorian: H. Hinnant's days_from_civil
// (https://howardhinnant.github.io/date_algorithms.html).
func daysFromCivil(y, m, d int) int32 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 {
		era = (y - 399) / 400
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int32(era*146097 + doe - 719468)
}

// digits is the value of a string of ASCII digits.
func digits(s string) (int, bool) {
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}
