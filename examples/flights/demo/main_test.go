package main

import (
	"bytes"
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestDemoOnSample runs the demo as `make demo` does when the full data is
// missing, on the committed sample, and checks the answers it prints. The
// expected numbers were computed with hand-written SQL on the sample (see
// test/flights for the systematic comparison).
func TestDemoOnSample(t *testing.T) {
	var out, errs bytes.Buffer
	args := []string{"--data", filepath.Join("..", "data"), "--model", filepath.Join("..", "model.yaml")}
	if code := run(context.Background(), args, &out, &errs); code != 0 {
		t.Fatalf("exit %d\nstderr: %s\nstdout: %s", code, errs.String(), out.String())
	}
	text := out.String()
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`Loaded 30,000 flights .* and 3,376 airports`),
		regexp.MustCompile(`Model "flights" \(Ossie 0\.2\.0\.dev0\) .* version sha256:[0-9a-f]{64}\.`),
		// 1. top origin state: California, 3,790 departures.
		regexp.MustCompile(`(?m)^CA +3,790 +884\.5077 +7\.3976$`),
		// 2. January: 5,083 flights, 78.65% on time (delay < 15).
		regexp.MustCompile(`(?m)^2001-01-01 +5,083 +5\.8879 +0\.7865$`),
		// 3. best destination state with >= 100 arrivals: Rhode Island.
		regexp.MustCompile(`(?m)^RI +0\.8667 +117 +135$`),
		// 4. busiest route: within California.
		regexp.MustCompile(`(?m)^CA +CA +1,459 +449,862 +340$`),
	} {
		if !want.MatchString(text) {
			t.Errorf("output lacks %s\n%s", want, text)
		}
	}
	if n := strings.Count(text, " rows, answered in "); n != len(questions()) {
		t.Errorf("%d answers printed, want %d", n, len(questions()))
	}
}

func TestDemoBadInput(t *testing.T) {
	cases := []struct {
		name string
		args []string
		code int
		err  string
	}{
		{"unknown flag", []string{"--nope"}, 2, "flag provided but not defined"},
		{"stray argument", []string{"extra"}, 2, "unexpected arguments"},
		{"missing data", []string{"--data", t.TempDir()}, 1, "no airports.csv"},
		{"missing model", []string{"--data", filepath.Join("..", "data"), "--model", filepath.Join(t.TempDir(), "none.yaml")}, 1, "cannot read file"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errs bytes.Buffer
			if code := run(context.Background(), c.args, &out, &errs); code != c.code {
				t.Fatalf("exit %d, want %d; stderr: %s", code, c.code, errs.String())
			}
			if !strings.Contains(errs.String(), c.err) {
				t.Errorf("stderr %q does not mention %q", errs.String(), c.err)
			}
		})
	}
}

func TestFormatCell(t *testing.T) {
	cases := []struct {
		in   any
		want string
	}{
		{nil, "NULL"},
		{int64(999), "999"},
		{int64(1000), "1,000"},
		{int64(-1234567), "-1,234,567"},
		{0.78654, "0.7865"},
		{12345.5, "12,345.5000"},
		{time.Date(2001, 2, 1, 0, 0, 0, 0, time.UTC), "2001-02-01"},
		{time.Date(2001, 2, 1, 13, 5, 0, 0, time.UTC), "2001-02-01 13:05:00"},
		{"O'Hare", "O'Hare"},
	}
	for _, c := range cases {
		if got := formatCell(c.in); got != c.want {
			t.Errorf("formatCell(%#v) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestWriteTableAligns(t *testing.T) {
	var b bytes.Buffer
	if err := writeTable(&b, []string{"state", "n"}, [][]any{{"CA", int64(3790)}, {"RI", int64(5)}, {nil, nil}}); err != nil {
		t.Fatal(err)
	}
	want := "state      n\n" +
		"-----  -----\n" +
		"CA     3,790\n" +
		"RI         5\n" +
		"NULL    NULL\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
