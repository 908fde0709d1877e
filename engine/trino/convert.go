package trino

import (
	"math/big"

	"github.com/ossie-dev/ossie/engine"
)

// converterFor returns the conversion of one value of a result column
// whose type Trino spells typ (upper case, as Query reports it):
// engine.Converter (DATE and TIME as text, TIMESTAMP [WITH TIME ZONE] in
// UTC, ARRAY and MAP elements recursively, numbers inside them as
// json.Number) plus DECIMAL, which the client sends as text: it becomes
// engine.Decimal (int64 when integral and in range, the text when integral
// but larger, else float64). VARCHAR, JSON, UUID and INTERVAL stay text.
func converterFor(typ string) func(any) any {
	conv := engine.Converter(typ, nil)
	if typ != "DECIMAL" && typ != "NUMBER" {
		return conv
	}
	return func(v any) any {
		if s, ok := v.(string); ok {
			if r, ok := new(big.Rat).SetString(s); ok {
				return engine.Decimal(r)
			}
			return s
		}
		return conv(v)
	}
}
