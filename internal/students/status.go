package students

// Status is a student's standing at the school, kept by the portal: the service has no
// such field. A student who is not active keeps their arrears (they are still owed) but
// is not billed by a class's fee plan, and lists say so beside their name.
type Status string

// The standings a student can have.
const (
	StatusActive    Status = "active"    // aktif
	StatusGraduated Status = "graduated" // lulus
	StatusMoved     Status = "moved"     // pindah (to another school)
	StatusLeft      Status = "left"      // keluar
)

// Statuses are every status, in the order forms offer them.
var Statuses = []Status{StatusActive, StatusGraduated, StatusMoved, StatusLeft}

// StatusOf reads a stored status; an empty or unknown one is active (rows written before
// statuses existed).
func StatusOf(s string) Status {
	for _, st := range Statuses {
		if string(st) == s {
			return st
		}
	}
	return StatusActive
}

// Active reports whether the student is at the school: billed by class plans, counted in
// the class's lists.
func (s Status) Active() bool { return s == StatusActive || s == "" }

// Key is the catalogue key of its name ("students.status.left": "Keluar").
func (s Status) Key() string { return "students.status." + string(StatusOf(string(s))) }
