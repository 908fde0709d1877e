package format

import (
	"bytes"
	"encoding/csv"
	"reflect"
	"testing"
	"time"
)

// TestCSVWriterKeepsEveryRow: a one-column answer's NULL or empty string
// is written `""`, which encoding/csv reads as a record with one empty
// field; written as an empty line (encoding/csv's own spelling of that
// record) readers skip it and the row is lost.
func TestCSVWriterKeepsEveryRow(t *testing.T) {
	for _, tc := range []struct {
		name string
		cols []ResultColumn
		rows [][]any
		want [][]string
	}{
		{"one column", []ResultColumn{{Name: "amount_per_row"}},
			[][]any{{nil}, {""}, {int64(3)}, {nil}},
			[][]string{{"amount_per_row"}, {""}, {""}, {"3"}, {""}}},
		{"two columns", []ResultColumn{{Name: "d"}, {Name: "m"}},
			[][]any{{nil, nil}, {"a,b", 1.5}, {true, time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)}},
			[][]string{{"d", "m"}, {"", ""}, {"a,b", "1.5"}, {"true", "2024-01-02T03:04:05Z"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			w := NewCSVWriter(&b)
			if err := w.Header(tc.cols); err != nil {
				t.Fatal(err)
			}
			for _, r := range tc.rows {
				if err := w.Row(r); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			got, err := csv.NewReader(bytes.NewReader(b.Bytes())).ReadAll()
			if err != nil {
				t.Fatalf("encoding/csv: %v\n%q", err, b.String())
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("read back %q, want %q\nCSV: %q", got, tc.want, b.String())
			}
		})
	}
}

// TestCSVWriterSpellsAsEncodingCSV: every field is quoted exactly when
// encoding/csv quotes it, and spelled the same.
func TestCSVWriterSpellsAsEncodingCSV(t *testing.T) {
	fields := []string{"", "plain", " lead", "\tlead", "\u00a0nbsp", "\u2028sep", "trail ", "a,b", `a"b`, "a\rb", "a\nb",
		"\r\n", `\.`, `\.x`, "é", "\xff", "-1", `""`}
	for _, a := range fields {
		for _, b := range fields {
			checkCSVLikeEncodingCSV(t, a, b)
		}
	}
}

// FuzzCSVWriter: any two text fields are written as encoding/csv writes
// them.
func FuzzCSVWriter(f *testing.F) {
	f.Add("a", " b")
	f.Add("x\"y", "\r\n")
	f.Fuzz(checkCSVLikeEncodingCSV)
}

func checkCSVLikeEncodingCSV(t *testing.T, a, b string) {
	var got, want bytes.Buffer
	w := NewCSVWriter(&got)
	if err := w.Row([]any{a, b}); err != nil {
		t.Fatal(err)
	}
	if err := w.Row([]any{a}); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	cw := csv.NewWriter(&want)
	_ = cw.Write([]string{a, b})
	if a == "" {
		cw.Flush()
		want.WriteString("\"\"\n")
	} else {
		_ = cw.Write([]string{a})
	}
	cw.Flush()
	if got.String() != want.String() {
		t.Errorf("fields %q, %q: wrote %q, encoding/csv %q", a, b, got.String(), want.String())
	}
}
