//go:build duckdb_arrow

package duckdb

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// nestedTypeName is duckTypeName of a LIST (Arrow list), ARRAY
// (fixed_size_list) or STRUCT column, spelled as the driver spells them:
// "INTEGER[]", "INTEGER[2]", `STRUCT("a" INTEGER, "b" VARCHAR)` (each
// name quoted, quotes doubled). found is false for any other Arrow type;
// ok is false for MAP and when a member's type is not read here.
func nestedTypeName(dt arrow.DataType) (name string, found, ok bool) {
	switch t := dt.(type) {
	case *arrow.MapType:
		// Not read here: DuckDB's Arrow MAP keys do not say they are
		// JSON, which the driver's rows decode.
		return "", true, false
	case *arrow.ListType:
		c, cok := memberTypeName(t.ElemField())
		return c + "[]", true, cok
	case *arrow.FixedSizeListType:
		c, cok := memberTypeName(t.ElemField())
		return fmt.Sprintf("%s[%d]", c, t.Len()), true, cok
	case *arrow.StructType:
		members := make([]string, t.NumFields())
		for i, f := range t.Fields() {
			m, mok := memberTypeName(f)
			if !mok {
				return "", true, false
			}
			members[i] = `"` + strings.ReplaceAll(f.Name, `"`, `""`) + `" ` + m
		}
		return "STRUCT(" + strings.Join(members, ", ") + ")", true, true
	}
	return "", false, false
}

// memberTypeName is duckTypeName of a member of a nested type, as the
// driver spells it inside the nested type's name: JSON there is VARCHAR
// (the driver names only a column's own alias). DuckDB 1.5 does not mark
// JSON members in Arrow either, so both paths read them as text.
func memberTypeName(f arrow.Field) (string, bool) {
	name, ok := duckTypeName(f)
	if name == "JSON" {
		return "VARCHAR", ok
	}
	return name, ok
}

// fieldReader returns the reader of a column of Arrow field f and DuckDB
// type typ (duckTypeName), its values converted by conv.
func fieldReader(f arrow.Field, typ string, conv func(any) any) (columnReader, bool) {
	switch storageType(f.Type).(type) {
	case *arrow.ListType, *arrow.FixedSizeListType, *arrow.StructType:
		raw, ok := rawReader(f)
		if !ok {
			return nil, false
		}
		return convertedBy(raw, conv), true
	}
	return arrowReader(typ, conv)
}

// rawReader reads a column of Arrow field f as the driver's rows hand its
// values over, unconverted (a member of a nested value is converted with
// the whole): LIST and ARRAY as []any, STRUCT as map[string]any with
// every member; NULL as nil at every level.
func rawReader(f arrow.Field) (columnReader, bool) {
	var read columnReader
	var ok bool
	switch t := storageType(f.Type).(type) {
	case *arrow.ListType:
		read, ok = listReader(t.ElemField())
	case *arrow.FixedSizeListType:
		read, ok = listReader(t.ElemField())
	case *arrow.StructType:
		read, ok = structReader(t)
	default:
		typ, known := duckTypeName(f)
		if !known {
			return nil, false
		}
		return arrowReader(typ, func(v any) any { return v })
	}
	if !ok {
		return nil, false
	}
	return nullable(read), true
}

// listReader reads LIST and ARRAY values, []any of elem's values.
func listReader(elem arrow.Field) (columnReader, bool) {
	child, ok := rawReader(elem)
	if !ok {
		return nil, false
	}
	return func(arr arrow.Array) func(int) any {
		a := arr.(array.ListLike)
		get := child(a.ListValues())
		return func(i int) any {
			start, end := a.ValueOffsets(i)
			out := make([]any, 0, end-start)
			for j := start; j < end; j++ {
				out = append(out, get(int(j)))
			}
			return out
		}
	}, true
}

// structReader reads STRUCT values, a map of every member's name to its
// value.
func structReader(t *arrow.StructType) (columnReader, bool) {
	members := make([]columnReader, t.NumFields())
	for i, f := range t.Fields() {
		r, ok := rawReader(f)
		if !ok {
			return nil, false
		}
		members[i] = r
	}
	return func(arr arrow.Array) func(int) any {
		a := arr.(*array.Struct)
		gets := make([]func(int) any, len(members))
		for k, r := range members {
			gets[k] = r(a.Field(k))
		}
		return func(i int) any {
			m := make(map[string]any, len(gets))
			for k, get := range gets {
				m[t.Field(k).Name] = get(i)
			}
			return m
		}
	}, true
}

// storageType is dt, or an extension type's storage type.
func storageType(dt arrow.DataType) arrow.DataType {
	if ext, ok := dt.(arrow.ExtensionType); ok {
		return ext.StorageType()
	}
	return dt
}
