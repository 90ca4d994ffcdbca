package main

import (
	"fmt"
	"math"
	"strings"
)

// growthStep is how a row grows from one size to a larger one.
type growthStep struct {
	From, To int // numbers of skills
	// CCSki and Floor are the value at To over the value at From; NaN
	// when either is missing or zero, or the row has no floor.
	CCSki, Floor float64
}

// growthRow is one row of the growth table: a metric at every size.
type growthRow struct {
	Key, Name string
	Values    []float64 // ccski's value at each size, in the report's order
	Steps     []growthStep
}

// growthSizes are the steps of the growth table: each size to the next
// larger one and, with more than two sizes, the first to the last.
func (r *report) growthSteps() [][2]int {
	var steps [][2]int
	for i := 1; i < len(r.sizes); i++ {
		if r.sizes[i-1].N < r.sizes[i].N {
			steps = append(steps, [2]int{i - 1, i})
		}
	}
	if len(r.sizes) > 2 && len(steps) == len(r.sizes)-1 {
		steps = append(steps, [2]int{0, len(r.sizes) - 1})
	}
	return steps
}

// growth returns a row for every metric measured at more than one size.
func (r *report) growth() []growthRow {
	if len(r.sizes) < 2 {
		return nil
	}
	steps := r.growthSteps()
	var rows []growthRow
	for _, m0 := range r.sizes[0].Metrics {
		row := growthRow{Key: m0.Key, Name: m0.Name}
		ms := make([]*metric, len(r.sizes))
		for i, s := range r.sizes {
			ms[i] = s.lookup(m0.Key)
			v := math.NaN()
			if ms[i] != nil && ms[i].Err == "" {
				v = ms[i].CCSki
			}
			row.Values = append(row.Values, v)
		}
		for _, st := range steps {
			a, z := ms[st[0]], ms[st[1]]
			g := growthStep{From: r.sizes[st[0]].N, To: r.sizes[st[1]].N, CCSki: math.NaN(), Floor: math.NaN()}
			if a != nil && z != nil && a.Err == "" && z.Err == "" {
				g.CCSki, g.Floor = quotient(z.CCSki, a.CCSki), quotient(z.Floor, a.Floor)
			}
			row.Steps = append(row.Steps, g)
		}
		rows = append(rows, row)
	}
	return rows
}

// quotient is z/a, NaN unless both are positive numbers.
func quotient(z, a float64) float64 {
	if math.IsNaN(z) || math.IsNaN(a) || a <= 0 || z < 0 || math.IsInf(z, 0) || math.IsInf(a, 0) {
		return math.NaN()
	}
	return z / a
}

// growthTable is the growth of every row across the sizes, in Markdown.
func (r *report) growthTable() string {
	rows := r.growth()
	if len(rows) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "### Growth from %s to %s skills\n\n", thousands(r.sizes[0].N), thousands(r.sizes[len(r.sizes)-1].N))
	b.WriteString("Each row's value at every size, then its growth over each step: the value at the larger size over the " +
		"value at the smaller, and in brackets the floor's growth over the same step where the row has a floor. " +
		"Work linear in the number of skills grows as the step (5× for 1k → 5k); a per-call figure, or calls/s, " +
		"stays near 1×.\n\n")
	b.WriteString("| metric |")
	align := "|---|"
	for _, s := range r.sizes {
		fmt.Fprintf(&b, " %s |", short(s.N))
		align += "--:|"
	}
	for _, st := range rows[0].Steps {
		fmt.Fprintf(&b, " %s / %s (%s×) |", short(st.To), short(st.From), formatFactor(float64(st.To)/float64(st.From)))
		align += "--:|"
	}
	b.WriteString("\n" + align + "\n")
	for _, row := range rows {
		fmt.Fprintf(&b, "| %s |", row.Name)
		for _, v := range row.Values {
			fmt.Fprintf(&b, " %s |", formatValue(v, row.Key))
		}
		for _, st := range row.Steps {
			fmt.Fprintf(&b, " %s |", formatGrowth(st))
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
	return b.String()
}

// formatGrowth is a growth cell: "4.90×", or "4.90× (floor 5.02×)".
func formatGrowth(g growthStep) string {
	if math.IsNaN(g.CCSki) {
		return "—"
	}
	if math.IsNaN(g.Floor) {
		return formatRatio(g.CCSki)
	}
	return formatRatio(g.CCSki) + " (floor " + formatRatio(g.Floor) + ")"
}

// formatFactor prints a step's factor without trailing zeros: 5, 2.5.
func formatFactor(f float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", f), "0"), ".")
}

// anchor is a figure another tool published, to set ccski's beside.
type anchor struct {
	Tool   string
	What   string  // what the figure measures
	MS     float64 // the figure, in milliseconds
	Skills int     // the number of skills it was measured with; 0 when not stated
	Source string
}

// The published anchors of issue 15.
const (
	codexStartupMS   = 191
	kiroCrewMS       = 1000
	kiroCrewSkills   = 1024
	anchorSourceNote = "as cited in issue 15 (the issue gives the figure, not a link to its publication)"
)

var anchors = []anchor{
	{Tool: "Codex CLI", What: "start-up to input", MS: codexStartupMS, Source: anchorSourceNote},
	{Tool: "KiroCrew", What: "skills loaded", MS: kiroCrewMS, Skills: kiroCrewSkills, Source: anchorSourceNote},
}

// anchorSize is the index of the measured size nearest to want skills
// (by ratio), or -1 when there is none.
func (r *report) anchorSize(want int) int {
	best, bestDist := -1, math.Inf(1)
	for i, s := range r.sizes {
		if d := math.Abs(math.Log(float64(s.N) / float64(want))); d < bestDist {
			best, bestDist = i, d
		}
	}
	return best
}

// anchorTable sets ccski's start-up (mcp ready) and list --json at the
// size nearest 1,024 skills beside the published anchors.
func (r *report) anchorTable() string {
	i := r.anchorSize(kiroCrewSkills)
	if i < 0 {
		return ""
	}
	s := r.sizes[i]
	ready, list := s.lookup("mcp-ready"), s.lookup("list-wall")
	var b strings.Builder
	b.WriteString("### Beside published figures\n\n")
	fmt.Fprintf(&b, "ccski at %s skills (the measured size nearest to %s), from this run, beside figures other tools "+
		"published. **Machines differ**: the anchors were measured by others, on other hardware, with other skill "+
		"trees, and measure their own tool's whole start-up; only the order of magnitude compares. The factor is the "+
		"anchor over ccski's figure.\n\n", thousands(s.N), thousands(kiroCrewSkills))
	fmt.Fprintf(&b, "| anchor | figure | skills | source | ccski `mcp` ready | factor | ccski `list --json` | factor |\n")
	b.WriteString("|---|--:|--:|---|--:|--:|--:|--:|\n")
	for _, a := range anchors {
		skills := "not stated"
		if a.Skills > 0 {
			skills = thousands(a.Skills)
		}
		fmt.Fprintf(&b, "| %s, %s | %s ms | %s | %s | %s | %s | %s | %s |\n", a.Tool, a.What, thousands(int(math.Round(a.MS))), skills, a.Source,
			anchorCell(ready), anchorFactor(a, ready), anchorCell(list), anchorFactor(a, list))
	}
	b.WriteString("\n")
	return b.String()
}

func anchorCell(m *metric) string {
	if m == nil || m.Err != "" {
		return "—"
	}
	return formatMS(m.CCSki) + " ms"
}

// anchorFactor is the anchor over ccski's figure.
func anchorFactor(a anchor, m *metric) string {
	if m == nil || m.Err != "" {
		return "—"
	}
	return formatRatio(quotient(a.MS, m.CCSki))
}
