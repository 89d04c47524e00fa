package driver

import (
	"fmt"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/pmezard/go-difflib/difflib"
	"golang.org/x/tools/go/packages"

	"github.com/ssagen/ssagen/internal/atomicfile"
)

// A candidate is the suggested fix of one finding, as byte edits.
type candidate struct {
	f     *finding
	edits []edit
}

type edit struct {
	file       string
	start, end int
	text       []byte
}

// outcome is what -fix decided for the findings of one package.
type outcome struct {
	accepted []*candidate
	declined map[*finding]string // reason
	files    map[string][]byte   // the new contents of the files changed
}

// maxRounds bounds the rounds of -fix: a rewrite can make another site
// rewritable (a result variable two CreateOrUpdates shared), which the
// next round's analysis, over the files as the last round left them,
// finds.
const maxRounds = 4

// fix applies (with -fix) or shows (with -diff) the fixes that survive
// the check, round after round while a round rewrites something, then
// prints what is left and the summary.
func fix(found []finding, o options) int {
	total := len(found)
	changed := map[string][]byte{}
	done := 0
	var rewritten map[*finding]bool
	var declined map[*finding]string
	for round := 1; ; round++ {
		rewritten, declined = fixRound(found, o, changed)
		if len(rewritten) == 0 || round == maxRounds {
			break
		}
		done += len(rewritten)
		next, err := analyze(o.patterns, o.tags, o.helpers, changed)
		if err != nil {
			fmt.Fprintf(o.stderr, "ssagen vet: after round %d of the fixes: %v\n", round, err)
			return exitError
		}
		found = next
	}
	done += len(rewritten)

	names := make([]string, 0, len(changed))
	for name := range changed {
		names = append(names, name)
	}
	sort.Strings(names)
	if o.diff {
		for _, name := range names {
			old, _ := os.ReadFile(name)
			printDiff(o, name, old, changed[name])
		}
	} else {
		for _, name := range names {
			if err := atomicfile.Replace(name, changed[name]); err != nil {
				fmt.Fprintf(o.stderr, "ssagen vet: %v\n", err)
				return exitError
			}
		}
	}

	// What is left, as plain vet prints it (at its place in the files as
	// the fixes leave them), with the reason a fix was declined when the
	// check declined it.
	var left []*finding
	for i := range found {
		f := &found[i]
		if rewritten[f] {
			continue
		}
		msg := f.diag.Message
		if why, ok := declined[f]; ok {
			msg += " (no automatic fix: " + why + ")"
		}
		fmt.Fprintf(o.stderr, "%s: %s\n", o.relPos(f.pos), o.relText(msg))
		left = append(left, f)
	}
	summary(o, total, done, declined, names, left)
	if len(left) > 0 {
		return exitFindings
	}
	return exitClean
}

// fixRound decides the fixes of found, package by package, over the
// files earlier rounds changed (changed, updated in place). A candidate
// the check declined is checked again in the next round: the fixes kept
// since may be what it needed.
func fixRound(found []finding, o options, changed map[string][]byte) (map[*finding]bool, map[*finding]string) {
	byPkg := map[*packages.Package][]*candidate{}
	var order []*packages.Package
	rewritten := map[*finding]bool{}
	declined := map[*finding]string{}
	for i := range found {
		f := &found[i]
		if len(f.diag.SuggestedFixes) == 0 {
			continue
		}
		c, err := toCandidate(f, changed)
		if err != nil {
			continue // positions outside the package's files: not ours to edit
		}
		c.edits = append(c.edits, testEdits(f, changed)...)
		c.edits = append(c.edits, stubEdits(f, changed)...)
		c.edits = append(c.edits, converterEdits(c, changed)...)
		if _, ok := byPkg[f.pkg]; !ok {
			order = append(order, f.pkg)
		}
		byPkg[f.pkg] = append(byPkg[f.pkg], c)
	}
	sort.Slice(order, func(i, j int) bool { return order[i].PkgPath < order[j].PkgPath })
	for _, pkg := range order {
		ch := &vetCheck{pkg: pkg, tags: o.tags, skip: o.noCheck, runTests: o.tests, base: changed}
		out := ch.decide(byPkg[pkg])
		for _, c := range out.accepted {
			rewritten[c.f] = true
		}
		for f, why := range out.declined {
			declined[f] = why
		}
		for name, b := range out.files {
			changed[name] = b
		}
	}
	return rewritten, declined
}

// summary prints the sites rewritten and those left, grouped by reason.
func summary(o options, total, rewritten int, declined map[*finding]string, files []string, left []*finding) {
	verb, files_ := "rewrote", "changed"
	if o.diff {
		verb, files_ = "would rewrite", "would change; nothing written"
	}
	rel := make([]string, len(files))
	for i, f := range files {
		rel[i] = o.relPos(tokenPos(f))
	}
	fmt.Fprintf(o.stderr, "ssagen vet -%s: %s %d of %d sites", map[bool]string{true: "diff", false: "fix"}[o.diff], verb, rewritten, total)
	if len(files) > 0 {
		tests := 0
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				tests++
			}
		}
		of := ""
		if tests > 0 {
			of = fmt.Sprintf(" (%d of them tests)", tests)
		}
		fmt.Fprintf(o.stderr, "; %d file(s) %s%s: %s", len(files), files_, of, strings.Join(rel, ", "))
	}
	fmt.Fprintf(o.stderr, "; %d left\n", len(left))
	groups := map[string][]*finding{}
	details := map[*finding]string{}
	for _, f := range left {
		why := declined[f]
		if why == "" {
			why = f.target.Why
		}
		if why == "" {
			why = "no automatic fix for " + f.diag.Category + " (docs/vet.md shows the rewrite by hand)"
		}
		general, detail := splitDetail(o.relText(why))
		if detail != "" {
			details[f] = detail
		}
		groups[general] = append(groups[general], f)
	}
	reasons := make([]string, 0, len(groups))
	for r := range groups {
		reasons = append(reasons, r)
	}
	sort.Slice(reasons, func(i, j int) bool {
		if len(groups[reasons[i]]) != len(groups[reasons[j]]) {
			return len(groups[reasons[i]]) > len(groups[reasons[j]])
		}
		return reasons[i] < reasons[j]
	})
	for _, r := range reasons {
		fmt.Fprintf(o.stderr, "  %d × %s\n", len(groups[r]), r)
		for _, f := range groups[r] {
			if d := details[f]; d != "" {
				fmt.Fprintf(o.stderr, "      %s (%s): %s\n", o.relPos(f.pos), f.diag.Category, d)
				continue
			}
			fmt.Fprintf(o.stderr, "      %s (%s)\n", o.relPos(f.pos), f.diag.Category)
		}
	}
}

// detailRE finds the part of a reason that names one site's expression
// (the typed object a CreateOrUpdate copies), so sites group by reason.
var detailRE = regexp.MustCompile(`^(.*built elsewhere) \((.*?)\)(, not a literal.*)$`)

// splitDetail returns the reason without the site's own detail, and it.
func splitDetail(why string) (general, detail string) {
	if m := detailRE.FindStringSubmatch(why); m != nil {
		return m[1] + m[3], m[2]
	}
	return why, ""
}

// toCandidate turns the first suggested fix of f into byte edits, over
// the files as changed holds them (else as on disk).
func toCandidate(f *finding, changed map[string][]byte) (*candidate, error) {
	c := &candidate{f: f}
	for _, e := range f.diag.SuggestedFixes[0].TextEdits {
		tf := f.pkg.Fset.File(e.Pos)
		if tf == nil {
			return nil, fmt.Errorf("edit without a file")
		}
		end := e.End
		if !end.IsValid() {
			end = e.Pos
		}
		if tf.Name() == "" || !strings.HasSuffix(tf.Name(), ".go") {
			return nil, fmt.Errorf("edit outside a Go file")
		}
		src, err := sourceOf(changed, tf.Name())
		if err != nil {
			return nil, err
		}
		start, stop := tf.Offset(e.Pos), tf.Offset(end)
		if stop > len(src) || start > stop {
			return nil, fmt.Errorf("edit outside %s", tf.Name())
		}
		c.edits = append(c.edits, edit{file: tf.Name(), start: start, end: stop, text: e.NewText})
	}
	return c, nil
}

func printDiff(o options, name string, old, new []byte) {
	rel := o.relPos(tokenPos(name))
	d := difflib.UnifiedDiff{
		A:        difflib.SplitLines(string(old)),
		B:        difflib.SplitLines(string(new)),
		FromFile: "a/" + filepath.ToSlash(rel),
		ToFile:   "b/" + filepath.ToSlash(rel),
		Context:  3,
	}
	text, _ := difflib.GetUnifiedDiffString(d)
	fmt.Fprint(o.stdout, text)
}

// tokenPos is a file's position, for relPos.
func tokenPos(name string) token.Position { return token.Position{Filename: name} }
