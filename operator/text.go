package operator

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Message limits. metav1.Condition allows 32 KiB, but status is read by
// kubectl and every watcher: condition messages stay short and the full
// problem list lives in status.problems. events.k8s.io notes are limited
// to 1 KiB by the API server.
const (
	maxConditionMessage = 2048
	maxEventNote        = 1000
)

// capMessage cuts s to at most limit bytes on a rune boundary, saying how
// much was left out.
func capMessage(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	const tail = " … (+%d bytes)"
	cut := limit - len(tail) - 8
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + strings.Replace(tail, "%d", strconv.Itoa(len(s)-cut), 1)
}
