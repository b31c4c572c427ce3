package components

import (
	"strconv"
)

// Charts are drawn on the server as SVG: no chart script, nothing inline to allow in the
// CSP. Colours are the .fill--N / .swatch--N classes of app.css (N = 1…6); every bar is a
// link to the list or report that makes up its figure, with a <title> tooltip that also
// serves screen readers.

// MaxSeries is how many colours the charts have; further series fold into the last one.
const MaxSeries = 6

// Series is one coloured part of a stacked chart, as its legend shows it.
type Series struct {
	Label string
	Class int // 1…MaxSeries
}

// Segment is one piece of a column or bar.
type Segment struct {
	Value int64
	Class int
	Title string // tooltip: what and how much
	Href  string
	// Geometry, filled in by the chart's layout.
	X, Y, W, H string
}

// ChartColumn is one column of a stacked column chart (a month).
type ChartColumn struct {
	Label    string
	Segments []Segment
	LabelX   string
}

// Tick is one horizontal grid line and its axis label.
type Tick struct {
	Y, Label string
}

// ColumnChart is a stacked column chart laid out for a viewBox of Width × Height.
type ColumnChart struct {
	ID      string
	Title   string
	Series  []Series
	Columns []ChartColumn
	Ticks   []Tick
	Width   int
	Height  int
	// AxisX, AxisY1, AxisY2 place the baseline.
	AxisX1, AxisX2, AxisY string
	Empty                 bool
}

func f1(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

// niceMax rounds max up to 1, 2, 2.5 or 5 times a power of ten, so that four grid lines
// fall on round amounts.
func niceMax(max int64) int64 {
	if max <= 0 {
		return 1
	}
	step := int64(1)
	for step*10 <= max {
		step *= 10
	}
	for _, m := range []int64{1, 2, 4, 5, 8, 10} {
		if step*m >= max {
			return step * m
		}
	}
	return step * 10
}

// LayoutColumns places columns of stacked segments. axis formats the grid labels.
func LayoutColumns(c ColumnChart, axis func(int64) string) ColumnChart {
	const (
		left, right, top, bottom = 64.0, 8.0, 10.0, 26.0
		ticks                    = 4
	)
	if c.Width == 0 {
		c.Width = 720
	}
	if c.Height == 0 {
		c.Height = 260
	}
	var maxTotal int64
	for _, col := range c.Columns {
		var t int64
		for _, s := range col.Segments {
			t += s.Value
		}
		maxTotal = max(maxTotal, t)
	}
	c.Empty = maxTotal == 0
	top0 := niceMax(maxTotal)
	plotW, plotH := float64(c.Width)-left-right, float64(c.Height)-top-bottom
	base := top + plotH
	c.AxisX1, c.AxisX2, c.AxisY = f1(left), f1(left+plotW), f1(base)
	c.Ticks = nil
	for i := 1; i <= ticks; i++ {
		v := top0 * int64(i) / ticks
		c.Ticks = append(c.Ticks, Tick{Y: f1(base - plotH*float64(i)/ticks), Label: axis(v)})
	}
	n := max(len(c.Columns), 1)
	slot := plotW / float64(n)
	barW := slot * 0.62
	for i := range c.Columns {
		col := &c.Columns[i]
		x := left + slot*float64(i) + (slot-barW)/2
		col.LabelX = f1(left + slot*float64(i) + slot/2)
		y := base
		for j := range col.Segments {
			s := &col.Segments[j]
			h := plotH * float64(s.Value) / float64(top0)
			y -= h
			s.X, s.Y, s.W, s.H = f1(x), f1(y), f1(barW), f1(h)
		}
	}
	return c
}

// Bar is one row of a horizontal bar chart.
type Bar struct {
	Label   string
	Value   string // formatted
	Segment Segment
	TextY   string
}

// BarChart is a horizontal bar chart laid out for a viewBox of Width × Height: each row
// has its label and amount on one line and the bar under them, so it reads at the
// width of half a page.
type BarChart struct {
	ID     string
	Title  string
	Bars   []Bar
	Width  int
	Height int
	// ValueX is where the amounts end (right-aligned).
	ValueX string
	Empty  bool
}

// LayoutBars places horizontal bars, one per row, scaled to the largest.
func LayoutBars(c BarChart) BarChart {
	const (
		rowH, barH, textH, pad = 40.0, 12.0, 16.0, 4.0
	)
	if c.Width == 0 {
		c.Width = 340
	}
	c.Height = int(rowH*float64(max(len(c.Bars), 1)) + pad)
	var maxV int64
	for _, b := range c.Bars {
		maxV = max(maxV, b.Segment.Value)
	}
	c.Empty = maxV == 0
	plotW := float64(c.Width) - 2
	for i := range c.Bars {
		b := &c.Bars[i]
		y := pad + rowH*float64(i)
		w := 0.0
		if maxV > 0 {
			w = plotW * float64(b.Segment.Value) / float64(maxV)
		}
		if b.Segment.Value > 0 && w < 2 {
			w = 2 // a small amount still shows
		}
		b.TextY = f1(y + textH - 4)
		b.Segment.X, b.Segment.Y, b.Segment.W, b.Segment.H = "0", f1(y+textH), f1(w), f1(barH)
	}
	c.ValueX = f1(float64(c.Width))
	return c
}
