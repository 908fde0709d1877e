package engine

import (
	"encoding/hex"
	"math"
)

// Finite returns f, or nil for NaN and ±Infinity: JSON has no spelling for
// them, and every engine answers them the same way through this.
func Finite(f float64) any {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	return f
}

// Int64 widens every Go integer width a driver returns (except uint64,
// which may not fit) to int64; ok=false for other values.
func Int64(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case int:
		return int64(x), true
	case int8:
		return int64(x), true
	case int16:
		return int64(x), true
	case int32:
		return int64(x), true
	case uint8:
		return int64(x), true
	case uint16:
		return int64(x), true
	case uint32:
		return int64(x), true
	}
	return 0, false
}

// FormatUUID renders 16 bytes as canonical UUID text
// (8-4-4-4-12 lower-case hex, RFC 9562).
func FormatUUID(b []byte) string {
	h := hex.EncodeToString(b)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}
