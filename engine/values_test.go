package engine

import (
	"encoding/json"
	"math"
	"math/big"
	"testing"
	"time"
)

// The shared rules on the values no engine test database hands over in
// every shape: exact decimals at the int64 edges, json.Number inside JSON
// values, unsigned and big integers, and the driver hook winning.
func TestValueSharedRules(t *testing.T) {
	rat := func(s string) *big.Rat {
		r, ok := new(big.Rat).SetString(s)
		if !ok {
			t.Fatalf("bad rational %q", s)
		}
		return r
	}
	big2 := new(big.Int).Lsh(big.NewInt(1), 70)
	cases := []struct {
		name string
		got  any
		want any
	}{
		{"decimal integral", Decimal(rat("9223372036854775807")), int64(math.MaxInt64)},
		{"decimal beyond int64", Decimal(rat("9223372036854775808")), "9223372036854775808"},
		{"decimal negative integral", Decimal(rat("-42.000")), int64(-42)},
		{"decimal fraction", Decimal(rat("12.34")), 12.34},
		{"decimal nil", Decimal(nil), nil},
		{"uint64 max", Value(uint64(math.MaxUint64), nil), "18446744073709551615"},
		{"uint64 small", Value(uint64(7), nil), int64(7)},
		{"big int", Value(big2, nil), "1180591620717411303424"},
		{"big int small", Value(big.NewInt(-5), nil), int64(-5)},
		{"json integer", Value(json.Number("12"), nil), int64(12)},
		{"json fraction", Value(json.Number("1.5"), nil), 1.5},
		{"float32 inf", Value(float32(math.Inf(1)), nil), nil},
		{"uuid array", Value([16]byte{0: 0xab, 15: 0x01}, nil), "ab000000-0000-0000-0000-000000000001"},
		{"time of day", TimeOfDay(time.Date(1, 1, 1, 8, 9, 10, 250_000_000, time.UTC)), "08:09:10.25"},
		{"hook first", Value(int64(3), func(v any) (any, bool) { return "hooked", true }), "hooked"},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s: got %#v (%T), want %#v (%T)", c.name, c.got, c.got, c.want, c.want)
		}
	}
	nested := Value([]any{map[string]any{"n": json.Number("2")}, uint8(1)}, nil).([]any)
	if m, ok := nested[0].(map[string]any); !ok || m["n"] != int64(2) || nested[1] != int64(1) {
		t.Errorf("nested = %#v", nested)
	}
	zone := time.FixedZone("x", 2*3600)
	if got := Value(time.Date(2024, 2, 29, 13, 0, 0, 0, zone), nil).(time.Time); got.Location() != time.UTC || got.Hour() != 11 {
		t.Errorf("time = %v", got)
	}
	if got := Converter("DATE", nil)(time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC)); got != "2024-02-29" {
		t.Errorf("DATE = %#v", got)
	}
	if got := Converter("UUID", nil)([]byte{15: 1}); got != "00000000-0000-0000-0000-000000000001" {
		t.Errorf("UUID = %#v", got)
	}
}

// TestConverterDateRemembered: one DATE column's conversion keeps the text
// of the dates it saw; every value, repeated or beyond the memo's bound,
// still gets its own date's text.
func TestConverterDateRemembered(t *testing.T) {
	conv := Converter("DATE", nil)
	start := time.Date(1999, 12, 31, 0, 0, 0, 0, time.UTC)
	for round := range 2 {
		for i := range dateTextMemo + 10 {
			d := start.AddDate(0, 0, i*(1-2*round)) // forwards, then backwards
			if got, want := conv(d), d.Format(time.DateOnly); got != want {
				t.Fatalf("round %d, day %d: %#v, want %q", round, i, got, want)
			}
		}
	}
	if got := conv(nil); got != nil {
		t.Errorf("NULL = %#v", got)
	}
}
