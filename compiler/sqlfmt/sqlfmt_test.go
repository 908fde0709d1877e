package sqlfmt

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"
)

// texts are the token texts of sql, whitespace left out: what Format must
// keep, in order.
func texts(sql string) []string {
	var out []string
	for _, t := range lex(sql) {
		out = append(out, t.text)
	}
	return out
}

// TestFormattedGoldensRunTheSame formats every planner golden (the three
// dialects) and checks only whitespace between tokens changed; the DuckDB
// ones then run on the golden's shop tables formatted and as rendered,
// giving the same rows.
func TestFormattedGoldensRunTheSame(t *testing.T) {
	files, err := filepath.Glob("../plan/testdata/*/expected.*.sql")
	if err != nil || len(files) < 20 {
		t.Fatalf("goldens: %v %d", err, len(files))
	}
	ddl, err := os.ReadFile("../plan/testdata/shop.sql")
	if err != nil {
		t.Fatal(err)
	}
	db := openDuckDB(t, string(ddl))
	ran := 0
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		q := strings.TrimSpace(string(raw))
		formatted := Format(q)
		if !reflect.DeepEqual(texts(formatted), texts(q)) {
			t.Errorf("%s: formatting changed a token\n%s", f, formatted)
		}
		if strings.Count(formatted, "\n") < 3 {
			t.Errorf("%s: not laid out on lines:\n%s", f, formatted)
		}
		if Format(formatted) != formatted {
			t.Errorf("%s: formatting twice differs", f)
		}
		if !strings.HasSuffix(f, ".duckdb.sql") {
			continue
		}
		want, werr := rows(db, q)
		got, gerr := rows(db, formatted)
		if fmt.Sprint(werr) != fmt.Sprint(gerr) || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: formatted %v %v, rendered %v %v\n%s", f, got, gerr, want, werr, formatted)
		}
		if werr == nil {
			ran++
		}
	}
	if ran < 20 {
		t.Errorf("only %d goldens ran on DuckDB", ran)
	}
}

// TestFormatKeepsLiteralsAndComments: keywords inside literals, quoted
// identifiers and comments, and the spaces inside them, stay as they are;
// a line comment still ends its line.
func TestFormatKeepsLiteralsAndComments(t *testing.T) {
	db := openDuckDB(t)
	q := `SELECT 'a  FROM   b' AS "x  FROM", "FROM" AS "y", $$ WHERE  'x' $$ AS "z", e'it\'s  FROM' AS "w", ` +
		`"t"."order" AS "o" FROM (SELECT 1 AS "FROM", 2 AS "order" /* FROM  x */) AS "t" -- a FROM  comment
WHERE 1 IS NOT DISTINCT FROM 1 ORDER BY 1`
	formatted := Format(q)
	if !reflect.DeepEqual(texts(formatted), texts(q)) {
		t.Fatalf("a token changed:\n%s", formatted)
	}
	for _, s := range []string{`'a  FROM   b'`, `"x  FROM"`, `$$ WHERE  'x' $$`, `e'it\'s  FROM'`, `/* FROM  x */`, "-- a FROM  comment\nWHERE 1 IS NOT DISTINCT FROM 1\nORDER BY 1", "\nFROM (\n  SELECT\n    1 AS \"FROM\","} {
		if !strings.Contains(formatted, s) {
			t.Errorf("formatted lacks %q:\n%s", s, formatted)
		}
	}
	want, werr := rows(db, q)
	got, gerr := rows(db, formatted)
	if werr != nil || gerr != nil || !reflect.DeepEqual(got, want) || fmt.Sprint(want) != "[[a  FROM   b 1  WHERE  'x'  it's  FROM 2]]" {
		t.Errorf("formatted %v %v, rendered %v %v\n%s", got, gerr, want, werr, formatted)
	}
}

func openDuckDB(t *testing.T, ddl ...string) *sql.DB {
	t.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(1)
	for _, s := range ddl {
		if _, err := db.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

func rows(db *sql.DB, q string) ([][]string, error) {
	rs, err := db.Query(q)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	cols, _ := rs.Columns()
	var out [][]string
	for rs.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			return nil, err
		}
		row := make([]string, len(vals))
		for i, v := range vals {
			row[i] = fmt.Sprint(v)
		}
		out = append(out, row)
	}
	return out, rs.Err()
}
