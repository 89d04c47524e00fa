package bench

import (
	"bytes"
	"fmt"
	"path/filepath"
	"time"

	"github.com/ssagen/ssagen/internal/atomicfile"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Charts draws the report's charts as SVG into dir and returns their
// file names: requests per unchanged resync against P, time to Ready in
// "proxy", reconciles per pod start in "sandbox".
func Charts(res *Results, dir string) ([]string, error) { return charts(res, dir, "svg") }

func charts(res *Results, dir, format string) ([]string, error) {
	pats := patternsOf(res)
	files := []string{"projects-requests." + format, "proxy-ready." + format, "sandbox-reconciles." + format}

	// 1. Requests per unchanged resync against P.
	p := newPlot("projects: requests per unchanged resync", "projects (P)", "requests per resync")
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	for i, pt := range pats {
		var xys plotter.XYs
		for _, r := range res.Projects {
			if r.Pattern == pt.Name {
				xys = append(xys, plotter.XY{X: float64(r.P), Y: float64(r.Resync.Requests.Total(NotWatch)) / float64(r.K)})
			}
		}
		if len(xys) == 0 {
			continue
		}
		l, pts, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, err
		}
		l.Color = plotutil.Color(i)
		l.Dashes = plotutil.Dashes(i)
		pts.Color = plotutil.Color(i)
		pts.Shape = plotutil.Shape(i)
		pts.Radius = vg.Points(3 + float64(len(pats)-i)/2) // overlapping zeros stay visible
		p.Add(l, pts)
		p.Legend.Add(pt.Name, l, pts)
	}
	p.Legend.Top, p.Legend.Left = true, true
	p.Y.Min = 0

	// 2. Time to Ready in "proxy", p50 and p99.
	names := make([]string, 0, len(res.Proxy))
	var p50, p99 plotter.Values
	for _, r := range res.Proxy {
		names = append(names, r.Pattern)
		p50 = append(p50, msf(Percentile(r.ToReady, 0.5)))
		p99 = append(p99, msf(Percentile(r.ToReady, 0.99)))
	}
	q := newPlot("proxy: creation → Ready", "", "milliseconds")
	if err := groupedBars(q, names, []string{"p50", "p99"}, p50, p99); err != nil {
		return nil, err
	}

	// 3. Reconciles per pod start in "sandbox".
	names = names[:0]
	var per plotter.Values
	for _, r := range res.Sandbox {
		names = append(names, r.Pattern)
		per = append(per, float64(r.Start.Reconciles)/float64(r.N))
	}
	s := newPlot(fmt.Sprintf("sandbox: reconciles per pod start (%d kubelet writes, %d real change)", len(KubeletWalk()), RealChanges), "", "reconciles")
	if err := groupedBars(s, names, []string{"reconciles per pod start"}, per); err != nil {
		return nil, err
	}

	for i, pl := range []*plot.Plot{p, q, s} {
		wt, err := pl.WriterTo(7*vg.Inch, 4*vg.Inch, format)
		if err != nil {
			return nil, err
		}
		var b bytes.Buffer
		if _, err := wt.WriteTo(&b); err != nil {
			return nil, err
		}
		if err := atomicfile.WriteFile(filepath.Join(dir, files[i]), b.Bytes(), 0o644); err != nil {
			return nil, err
		}
	}
	return files, nil
}

func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.Add(plotter.NewGrid())
	return p
}

func groupedBars(p *plot.Plot, names, series []string, values ...plotter.Values) error {
	w := vg.Points(18)
	for i, v := range values {
		b, err := plotter.NewBarChart(v, w)
		if err != nil {
			return err
		}
		b.Color = plotutil.Color(i)
		b.LineStyle.Width = 0
		b.Offset = w * vg.Length(float64(i)-float64(len(values)-1)/2)
		p.Add(b)
		if len(values) > 1 {
			p.Legend.Add(series[i], b)
		}
	}
	top := 0.0
	for _, v := range values {
		for _, x := range v {
			top = max(top, x)
		}
	}
	p.Legend.Top, p.Legend.Left = true, true
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.7, float64(len(names))-0.3
	p.Y.Max = top * 1.3 // room for the legend
	p.X.Tick.Label.Rotation = 0.35
	p.X.Tick.Label.XAlign = draw.XRight
	p.Y.Min = 0
	return nil
}

func msf(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
