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
