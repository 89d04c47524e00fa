package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const events = `{"Action":"run","Package":"a","Test":"TestOK"}
{"Action":"output","Package":"a","Test":"TestOK","Output":"=== RUN   TestOK\n"}
{"Action":"pass","Package":"a","Test":"TestOK","Elapsed":61.5}
{"Action":"pass","Package":"a","Elapsed":62}
{"Action":"run","Package":"b","Test":"TestBad"}
{"Action":"output","Package":"b","Test":"TestBad/sub","Output":"    bad_test.go:9: wrong answer\n"}
{"Action":"fail","Package":"b","Test":"TestBad/sub","Elapsed":0.1}
{"Action":"fail","Package":"b","Test":"TestBad","Elapsed":0.1}
{"Action":"skip","Package":"b","Test":"TestSkipped","Elapsed":0}
{"Action":"fail","Package":"b","Elapsed":1}
{"Action":"run","Package":"c","Test":"TestSlow"}
{"Action":"output","Package":"c","Test":"TestSlow","Output":"    scratch.go:80: step: go build ./... (in /tmp/x)\n"}
{"Action":"output","Package":"c","Output":"panic: test timed out after 20m0s\n"}
{"Action":"output","Package":"c","Output":"goroutine 1 [running]:\n"}
{"Action":"fail","Package":"c","Elapsed":1200}
{"ImportPath":"d","Action":"build-output","Output":"d/x.go:3:1: syntax error\n"}
{"ImportPath":"d","Action":"build-fail"}
`

// TestReport: what is printed, the times table and the list of tests.
func TestReport(t *testing.T) {
	r := newReport()
	var out strings.Builder
	if err := r.read(strings.NewReader(events), &out); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		"ok  \ta\t62.0s\n",
		"bad_test.go:9: wrong answer",
		"FAIL\tb\t1.0s",
		"--- TIMEOUT c after 1200s: still running:\n    TestSlow, in its step: scratch.go:80: step: go build ./... (in /tmp/x)",
		"d/x.go:3:1: syntax error",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "goroutine 1") {
		t.Errorf("a timeout printed its goroutine dump:\n%s", got)
	}
	if !r.failed {
		t.Error("not failed")
	}
	dir := t.TempDir()
	if err := r.write(dir, "make test"); err != nil {
		t.Fatal(err)
	}
	times, _ := os.ReadFile(filepath.Join(dir, "times.md"))
	for _, want := range []string{"| c | 1200.0 | FAIL |", "| a | 62.0 | ok |", "| a | TestOK | 61.5 |"} {
		if !strings.Contains(string(times), want) {
			t.Errorf("times.md lacks %q:\n%s", want, times)
		}
	}
	if strings.Index(string(times), "| c |") > strings.Index(string(times), "| a |") {
		t.Errorf("times.md is not slowest first:\n%s", times)
	}
	list, _ := os.ReadFile(filepath.Join(dir, "tests.txt"))
	if string(list) != "a TestOK pass\nb TestBad fail\nb TestBad/sub fail\nb TestSkipped skip\n" {
		t.Errorf("tests.txt:\n%s", list)
	}
}
