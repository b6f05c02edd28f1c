package jobsync

import "strconv"

// count writes n with the noun in the number it needs: "1 pod", "3 pods".
// Reasons and notes are read by people (jobsim prints them as they are).
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
