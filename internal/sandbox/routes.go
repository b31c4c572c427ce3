package sandbox

import (
	"net/http"
	"strings"
)

// handlerFunc is an endpoint; a returned error is answered by writeError.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

// routes registers every endpoint of the contract, its aliases and the
// sandbox-only routes. Paths without a method answer 405 for the other methods.
func (s *Server) routes() *http.ServeMux {
	mux := http.NewServeMux()
	allowed := map[string][]string{}
	handle := func(method, path string, h handlerFunc) {
		allowed[path] = append(allowed[path], method)
		mux.HandleFunc(method+" "+path, func(w http.ResponseWriter, r *http.Request) {
			if err := h(w, r); err != nil {
				s.writeError(w, r, err)
			}
		})
	}

	// Students.
	handle("POST", "/bill/batch", s.studentBatch)
	handle("POST", "/bill/checkout", s.studentCheckout)
	handle("GET", "/bill/{nis}", s.studentGet)
	handle("DELETE", "/bill/{nis}", s.studentDelete)
	handle("POST", "/bill", s.studentCreate)
	handle("PUT", "/bill", s.studentUpdate)
	handle("GET", "/bill", s.studentList)

	// Bill components.
	handle("POST", "/bill_component/batch", s.componentBatch)
	handle("POST", "/bill_component", s.componentCreate)
	handle("PUT", "/bill_component", s.componentUpdate)
	handle("GET", "/bill_component/get/{id}", s.componentGet)
	handle("POST", "/bill_component/delete", s.componentDelete)
	handle("POST", "/bill_component/pay", s.componentPay)
	handle("GET", "/bill_component/search/biller", s.searchBiller)
	handle("GET", "/biller/bill_component/search/biller", s.searchBiller) // alias
	handle("GET", "/bill_component/search/bill", s.searchBill)

	// Sandbox controls.
	handle("GET", "/_sandbox/clock", s.clockGet)
	handle("POST", "/_sandbox/clock", s.clockSet)
	handle("GET", "/_sandbox/reminders", s.remindersList)
	handle("GET", "/_sandbox/faults", s.faultsGet)
	handle("POST", "/_sandbox/faults", s.faultsSet)
	handle("POST", "/_sandbox/bank-payment", s.bankPayment)
	handle("GET", "/_sandbox/callbacks", s.callbacksList)

	for path, methods := range allowed {
		if path == "/bill/batch" || path == "/bill/checkout" {
			// Other methods on these reach /bill/{nis}: a student named "batch".
			continue
		}
		allow := strings.Join(methods, ", ")
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Allow", allow)
			writeJSON(w, http.StatusMethodNotAllowed, r.Method+" is not allowed on "+r.URL.Path, nil)
		})
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusNotFound, "no such endpoint: "+r.URL.Path, nil)
	})
	return mux
}
