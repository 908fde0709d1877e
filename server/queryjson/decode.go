package queryjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/server/problem"
)

// decodeProblems decodes a query body the way plan.ParseQuery does
// (strict, numbers kept) and turns a failure into one OSS4001 problem in
// plain words with the JSON path of the offending member (`limit`,
// `filters.op`), instead of encoding/json's Go type names. Nil when the
// body decodes.
func decodeProblems(body []byte) compiler.Problems {
	var q Request
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	err := dec.Decode(&q)
	if err == nil {
		if dec.More() {
			return BadBody("", "the body has data after the query object; send one JSON object")
		}
		return nil
	}
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.EOF):
		return BadBody("", "the body is empty; send a JSON object such as {\"metrics\": [\"...\"]}")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return BadBody("", "the body ends before the JSON object is complete")
	case errors.As(err, &syn):
		return BadBody("", fmt.Sprintf("the body is not valid JSON (at byte %d)", syn.Offset))
	case errors.As(err, &typ):
		// Members of the embedded plan.Query come prefixed with its name.
		typ.Field = strings.TrimPrefix(typ.Field, "Query.")
		if typ.Field == "" {
			return BadBody("", "the body must be a JSON object, not "+article(typ.Value))
		}
		return BadBody(typ.Field, fmt.Sprintf("%s must be %s, not %s", typ.Field, expected(typ.Type), article(typ.Value)))
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		key := strings.TrimPrefix(err.Error(), "json: unknown field ")
		return BadBody(strings.Trim(key, `"`), "unknown key "+key+"; a query takes metrics, dimensions, filters, order_by, limit, offset, timezone, through and total, and /sql also explain (a dimension object: field, grain, week_start, via, compare_date_range; a filter: field or metric, grain, via, op, values or value; an order: key, dir)")
	}
	return BadBody("", "the body is not a valid query object")
}

// BadBody is one OSS4001 problem at path (a JSON path such as
// `filters[1].op`, "" for the whole body) with msg in plain words.
func BadBody(path, msg string) compiler.Problems {
	return compiler.Problems{{Code: compiler.CodeBadQuery, Severity: compiler.SeverityError, Path: path, Message: msg}}
}

// expected names a Go destination type in the words of the query format.
func expected(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		if e := t.Elem(); e.Kind() == reflect.String {
			return "a list of strings"
		}
		return "a list"
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return "a JSON scalar"
}

// article renders encoding/json's name of a JSON value kind ("array",
// "number -1.5", "string") with an article.
func article(v string) string {
	if i := strings.IndexByte(v, ' '); i > 0 {
		v = v[:i]
	}
	switch v {
	case "array", "object":
		return "an " + v
	case "":
		return "this value"
	}
	return "a " + v
}

// Strict decodes the arguments of a call that takes a fixed object (the
// MCP list_models and describe_model tools) into v: unknown keys and
// wrong types are a 400 *problem.Error with OSS4001 and the key's path.
func Strict(args []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var typ *json.UnmarshalTypeError
		path, msg := "", "the arguments are not a valid object: "+err.Error()
		switch {
		case errors.As(err, &typ):
			path, msg = typ.Field, fmt.Sprintf("%s must be %s, not %s", typ.Field, expected(typ.Type), article(typ.Value))
		case strings.HasPrefix(err.Error(), "json: unknown field "):
			key := strings.TrimPrefix(err.Error(), "json: unknown field ")
			path, msg = strings.Trim(key, `"`), "unknown argument "+key
		}
		return problem.QueryProblems(BadBody(path, msg))
	}
	return nil
}
