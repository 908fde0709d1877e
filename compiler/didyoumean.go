package compiler

import (
	"strings"
	"unicode/utf8"
)

// DidYouMean returns the candidate closest to name, or "" when none is close
// enough to be a plausible typo. Comparison ignores case and counts
// insertions, deletions, substitutions and swaps of adjacent characters
// (optimal string alignment distance). A candidate is close when its
// distance is at most 1 for names up to 4 characters, 2 up to 8, and 3
// beyond. Ties go to the earlier candidate, so the answer is deterministic.
// Used for unknown keys and enum values here and for unknown metrics and
// dimensions by the planner.
func DidYouMean(name string, candidates []string) string {
	if name == "" {
		return ""
	}
	lname := strings.ToLower(name)
	n := utf8.RuneCountInString(lname)
	limit := 1
	switch {
	case n > 8:
		limit = 3
	case n > 4:
		limit = 2
	}
	best, bestDist := "", limit+1
	for _, c := range candidates {
		d := osaDistance(lname, strings.ToLower(c), bestDist)
		if d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

// osaDistance is the optimal string alignment distance between a and b in
// runes. It gives up early and returns max once every path costs max or more.
func osaDistance(a, b string, max int) int {
	ra, rb := []rune(a), []rune(b)
	if d := len(ra) - len(rb); d >= max || -d >= max {
		return max
	}
	// Three rows of the matrix; names are short, so they fit on the stack.
	var rows [3 * 33]int
	buf := rows[:]
	if len(rb) >= 33 {
		buf = make([]int, 3*(len(rb)+1))
	}
	w := len(rb) + 1
	prev2, prev, cur := buf[:w], buf[w:2*w], buf[2*w:3*w]
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				v = min(v, prev2[j-2]+1)
			}
			cur[j] = v
			rowMin = min(rowMin, v)
		}
		if rowMin >= max {
			return max
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return min(prev[len(rb)], max)
}
