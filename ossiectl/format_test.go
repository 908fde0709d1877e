package ossiectl

import (
	"bytes"
	"encoding/csv"
	"reflect"
	"testing"

	"github.com/ossie-dev/ossie/server"
	"github.com/ossie-dev/ossie/server/format"
)

// TestCSVOutputKeepsNullRows: `--format csv` writes what the HTTP API's
// CSV does (server.CSVWriter), so a one-column answer whose value is NULL
// is a record encoding/csv reads, not an empty line it skips.
func TestCSVOutputKeepsNullRows(t *testing.T) {
	resp := &server.Response{Columns: []format.ResultColumn{{Name: "amount_per_row", Kind: "metric", Type: "Float"}},
		Rows: [][]any{{nil}, {2.5}}, RowCount: 2}
	var b bytes.Buffer
	if err := writeAnswer(&b, "csv", resp); err != nil {
		t.Fatal(err)
	}
	got, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if want := [][]string{{"amount_per_row"}, {""}, {"2.5"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("read back %q, want %q", got, want)
	}
}
