package web

import (
	"runtime"
	"testing"
	"time"
	"weak"
)

// TestCatalogueGoesWithItsSnapshot: the catalogue of a snapshot the server
// has moved on from is dropped, and its records with it, even when nobody
// asks for the page again.
func TestCatalogueGoesWithItsSnapshot(t *testing.T) {
	src, _ := fixture(t, 50)
	var cats catalogues
	if cat := cats.of(src.snap); len(cat.rows) != 54 {
		t.Fatalf("%d rows", len(cat.rows))
	}
	rec := weak.Make(src.snap.Skills()[0])
	// The server moves on: nothing but the page's catalogue holds the
	// snapshot now.
	src.snap = nil
	gone := func() bool {
		cats.mu.Lock()
		defer cats.mu.Unlock()
		return cats.cur == nil && rec.Value() == nil
	}
	for i := 0; i < 200 && !gone(); i++ {
		runtime.GC()                 // the snapshot, then (its cleanup having run) the records
		time.Sleep(time.Millisecond) // let the cleanup goroutine run
	}
	if !gone() {
		t.Errorf("the catalogue of a snapshot nothing else holds is kept (catalogue dropped: %v)", cats.cur == nil)
	}
	// The current snapshot's catalogue stays, whatever the collector does.
	src2, _ := fixture(t, 1)
	cat := cats.of(src2.snap)
	runtime.GC()
	runtime.GC()
	if cats.of(src2.snap) != cat {
		t.Errorf("the catalogue of the snapshot served now was rebuilt")
	}
	runtime.KeepAlive(src2)
}
