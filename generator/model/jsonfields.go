package model

import "sort"

// JSONField is a field as encoding/json sees it on a struct: the declared
// field and the inline embedded fields it is promoted through, outermost
// first (empty for the struct's own fields).
type JSONField struct {
	*Field
	Via []*Field
}

// Depth is the number of inline embeddings the field is reached through.
func (f JSONField) Depth() int { return len(f.Via) }

// ResolveJSON computes the serialised fields of t with encoding/json's
// rules, whatever the declaration order: inline embedded structs are
// walked breadth first (each struct type once per walk, so cyclic embeds
// end), and among fields of one JSON name the shallowest wins, then the one
// named by a tag; two left tied hide each other and are returned as an
// ambiguity. Fields come back in encoding/json's order (by index sequence).
func ResolveJSON(t *Type) (fields []JSONField, ambiguous [][]JSONField) {
	all := jsonCandidates(t)
	sort.SliceStable(all, func(i, j int) bool {
		a, b := all[i], all[j]
		if a.JSONName != b.JSONName {
			return a.JSONName < b.JSONName
		}
		if len(a.index) != len(b.index) {
			return len(a.index) < len(b.index)
		}
		if a.tagged != b.tagged {
			return a.tagged
		}
		return lessIndex(a.index, b.index)
	})
	var winners []jsonCandidate
	for i := 0; i < len(all); {
		j := i + 1
		for j < len(all) && all[j].JSONName == all[i].JSONName {
			j++
		}
		group := all[i:j]
		if len(group) > 1 && len(group[0].index) == len(group[1].index) && group[0].tagged == group[1].tagged {
			var tied []JSONField
			for _, c := range group {
				if len(c.index) == len(group[0].index) && c.tagged == group[0].tagged && (len(tied) == 0 || tied[len(tied)-1].Field != c.Field) {
					tied = append(tied, c.JSONField)
				}
			}
			if len(tied) > 1 {
				ambiguous = append(ambiguous, tied)
			}
		} else {
			winners = append(winners, group[0])
		}
		i = j
	}
	sort.Slice(winners, func(i, j int) bool { return lessIndex(winners[i].index, winners[j].index) })
	for _, w := range winners {
		fields = append(fields, w.JSONField)
	}
	return fields, ambiguous
}

// jsonCandidate is a field that may serialise under its JSON name: its
// index sequence from t, and whether a tag names it.
type jsonCandidate struct {
	JSONField
	index  []int
	tagged bool
}

// jsonCandidates walks t's inline embedded structs breadth first, each
// struct type once, and returns every field they serialise; a struct
// embedded twice at one depth gives its fields twice (encoding/json
// annihilates them, as if they were ambiguous).
func jsonCandidates(t *Type) []jsonCandidate {
	type level struct {
		t     *Type
		via   []*Field
		index []int
	}
	var all []jsonCandidate
	current := []level{}
	next := []level{{t: t}}
	visited := map[*Type]bool{}
	for len(next) > 0 {
		current, next = next, current[:0]
		count := map[*Type]int{}
		nextCount := map[*Type]int{}
		for _, lv := range current {
			count[lv.t]++
		}
		for _, lv := range current {
			if visited[lv.t] {
				continue
			}
			visited[lv.t] = true
			for i, f := range lv.t.Fields {
				index := append(append([]int(nil), lv.index...), i)
				if f.Inline {
					r := f.Type.Deref()
					if r.Kind == RefNamed && r.Named.Shape == ShapeStruct {
						nextCount[r.Named]++
						if nextCount[r.Named] == 1 {
							via := append(append([]*Field(nil), lv.via...), f)
							next = append(next, level{t: r.Named, via: via, index: index})
						}
					}
					continue
				}
				c := jsonCandidate{JSONField: JSONField{Field: f, Via: lv.via}, index: index, tagged: f.Tagged}
				all = append(all, c)
				if count[lv.t] > 1 {
					all = append(all, c)
				}
			}
		}
	}
	return all
}

func lessIndex(a, b []int) bool {
	for k := 0; k < len(a) && k < len(b); k++ {
		if a[k] != b[k] {
			return a[k] < b[k]
		}
	}
	return len(a) < len(b)
}
