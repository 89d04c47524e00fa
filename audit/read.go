package audit

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// Policy is the smallest audit policy that gives every number of the
// report (docs/audit.md): the bodies of writes, whose responses'
// resourceVersions tell the writes that changed nothing, the metadata of
// the rest, and each request once.
const Policy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: RequestResponse
  verbs: [create, update, patch]
- level: Metadata
`

// ReadFile is Read of the file name.
func ReadFile(name string, each func(*Event), skip func(Skip)) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	return Read(f, name, each, skip)
}

// Skip is a line the reader could not use.
type Skip struct {
	File   string
	Line   int
	Reason string
}

func (s Skip) String() string { return fmt.Sprintf("%s:%d: %s", s.File, s.Line, s.Reason) }

// Read streams the audit events of r (gzip is recognised by its magic
// bytes) to each, line by line. A line that is not an audit.k8s.io/v1
// Event — truncated, of another version, not JSON at all — goes to skip
// with its line number, and reading goes on. The error is for r itself
// failing.
func Read(r io.Reader, name string, each func(*Event), skip func(Skip)) error {
	br := bufio.NewReaderSize(r, 1<<20)
	if magic, err := br.Peek(2); err == nil && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return fmt.Errorf("%s: %v", name, err)
		}
		defer zr.Close()
		br = bufio.NewReaderSize(zr, 1<<20)
	}
	for line := 1; ; line++ {
		b, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(b)) > 0 {
			var e Event
			switch derr := json.Unmarshal(b, &e); {
			case derr != nil:
				reason := "not a JSON object (a truncated line?): " + derr.Error()
				var syn *json.SyntaxError
				if errors.As(derr, &syn) && err == io.EOF {
					reason = "the last line is cut short: " + derr.Error()
				}
				skip(Skip{name, line, reason})
			case e.Kind != "Event" || e.APIVersion != "audit.k8s.io/v1":
				skip(Skip{name, line, fmt.Sprintf("apiVersion %q kind %q: not an audit.k8s.io/v1 Event", e.APIVersion, e.Kind)})
			default:
				each(&e)
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s:%d: %v", name, line, err)
		}
	}
}
