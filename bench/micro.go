package bench

import (
	"bufio"
	"regexp"
	"strconv"
	"strings"
)

// Micro is the mean of each metric of each benchmark in `go test -bench`
// output: Micro["BenchmarkApply/call=raw-client-apply"]["ns/op"].
type Micro map[string]map[string]float64

var procSuffix = regexp.MustCompile(`-\d+$`)

// ParseMicro reads `go test -bench` output (any -count).
func ParseMicro(out string) Micro {
	sums := map[string]map[string]float64{}
	counts := map[string]map[string]int{}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		if _, err := strconv.Atoi(f[1]); err != nil {
			continue // not a result line
		}
		name := procSuffix.ReplaceAllString(f[0], "")
		if sums[name] == nil {
			sums[name], counts[name] = map[string]float64{}, map[string]int{}
		}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				continue
			}
			sums[name][f[i+1]] += v
			counts[name][f[i+1]]++
		}
	}
	out2 := Micro{}
	for name, m := range sums {
		out2[name] = map[string]float64{}
		for unit, s := range m {
			out2[name][unit] = s / float64(counts[name][unit])
		}
	}
	return out2
}
