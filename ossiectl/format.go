package ossiectl

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ossie-dev/ossie/server"
	"github.com/ossie-dev/ossie/server/format"
)

// writeAnswer prints resp as an aligned table (metrics right-aligned, a
// row count footer that says when the answer was truncated), as the JSON
// the HTTP API returns, or as the CSV the HTTP API returns
// (format.CSVWriter).
func writeAnswer(w io.Writer, outFormat string, resp *server.Response) error {
	switch outFormat {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(resp)
	case "csv":
		cw := format.NewCSVWriter(w)
		if err := cw.Header(resp.Columns); err != nil {
			return err
		}
		for _, r := range resp.Rows {
			if err := cw.Row(r); err != nil {
				return err
			}
		}
		return cw.Flush()
	}
	return writeTable(w, resp)
}

func writeTable(w io.Writer, resp *server.Response) error {
	n := len(resp.Columns)
	cells := make([][]string, len(resp.Rows)+1)
	cells[0] = make([]string, n)
	width := make([]int, n)
	right := make([]bool, n)
	for i, c := range resp.Columns {
		cells[0][i] = c.Name
		right[i] = c.Kind == "metric"
	}
	for r, row := range resp.Rows {
		cells[r+1] = make([]string, n)
		for i := range n {
			s := "NULL"
			if i < len(row) && row[i] != nil {
				s = cell(row[i])
			}
			cells[r+1][i] = s
		}
	}
	for _, row := range cells {
		for i, s := range row {
			width[i] = max(width[i], utf8.RuneCountInString(s))
		}
	}
	var b strings.Builder
	line := func(row []string) {
		for i, s := range row {
			if i > 0 {
				b.WriteString("  ")
			}
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(s))
			if right[i] {
				b.WriteString(pad + s)
			} else if i == n-1 {
				b.WriteString(s)
			} else {
				b.WriteString(s + pad)
			}
		}
		b.WriteString("\n")
	}
	line(cells[0])
	rule := make([]string, n)
	for i := range rule {
		rule[i] = strings.Repeat("-", width[i])
	}
	line(rule)
	for _, row := range cells[1:] {
		line(row)
	}
	fmt.Fprintf(&b, "(%d %s", len(resp.Rows), plural(len(resp.Rows), "row", "rows"))
	if resp.Truncated {
		b.WriteString(", truncated: more rows exist; raise --max-rows")
	}
	b.WriteString(")\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// cell renders one value for table output.
func cell(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case int64:
		return strconv.FormatInt(x, 10)
	case bool:
		return strconv.FormatBool(x)
	case time.Time:
		if x.Location() == time.UTC && x.Hour() == 0 && x.Minute() == 0 && x.Second() == 0 && x.Nanosecond() == 0 {
			return x.Format(time.DateOnly)
		}
		if x.Location() == time.UTC {
			return x.Format("2006-01-02 15:04:05.999999")
		}
		return x.Format(time.RFC3339Nano)
	case []byte:
		return fmt.Sprintf("\\x%x", x)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
