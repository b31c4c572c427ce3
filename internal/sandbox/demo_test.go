package sandbox

import (
	"net/http"
	"testing"
	"time"
)

func TestDemoSchool(t *testing.T) {
	start := time.Now()
	c := newSandbox(t, Options{Demo: true})
	t.Logf("demo loaded in %v", time.Since(start))
	var students, components int
	c.sb.store.db.QueryRow(`SELECT count(*) FROM students`).Scan(&students)
	c.sb.store.db.QueryRow(`SELECT count(*) FROM components`).Scan(&components)
	t.Logf("%d students, %d components", students, components)
	for _, st := range []string{"paid", "provisioned", "expired"} {
		recs := into[[]record](t, c.must(http.StatusOK, "GET", "/bill_component/search/biller?limit=1000&state="+st, nil))
		t.Logf("%s: %d (first %+v)", st, len(recs), recs[0])
	}
}
