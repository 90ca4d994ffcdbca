package search

import (
	"fmt"
	"testing"

	"github.com/ccski/ccski/pipeline"
)

// BenchmarkNewMeta measures building the meta index (names, ids and
// descriptions of the fixture's shape) at 5,000 and 100,000 records.
func BenchmarkNewMeta(b *testing.B) {
	for _, n := range []int{5000, 100000} {
		recs := make([]*pipeline.Record, n)
		for i := range recs {
			name := fmt.Sprintf("skill-%05d", i)
			recs[i] = &pipeline.Record{Name: name, Agent: "claude", Description: fmt.Sprintf(
				"Handles task %d for 文档 files. Use when the user asks about データ or %s.", i, name)}
		}
		pipeline.AssignIDs(recs)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for range b.N {
				newMeta(recs)
			}
		})
	}
}
