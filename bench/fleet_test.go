package bench

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestFleetReport: the fleet rows TestScale writes render as the report's
// table, figures grouped by thousands; without them the section says so.
func TestFleetReport(t *testing.T) {
	var b bytes.Buffer
	writeFleet(&b, nil)
	if !strings.Contains(b.String(), "## Fleets on multicluster-runtime\n\nNot run") {
		t.Errorf("without rows, the fleet section does not say it was not run")
	}
	b.Reset()
	writeFleet(&b, []FleetRow{{Clusters: 1000, PerCluster: 971.6, PerObject: 2887.9, Freed: 2467.5, Engage: 2216 * time.Nanosecond, Disengage: 3184 * time.Nanosecond}})
	if want := "| 1,000 | 972 B | 2,888 B | 2,468 B | 0 | 2.22µs | 3.18µs |"; !strings.Contains(b.String(), want) {
		t.Errorf("the fleet table lacks %q:\n%s", want, b.String())
	}
}
