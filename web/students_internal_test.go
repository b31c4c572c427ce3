package web

import (
	"testing"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/students"
)

func TestEveryStudentProblemHasAMessage(t *testing.T) {
	all := []students.Problem{
		students.ProblemRequired, students.ProblemTooLong, students.ProblemNIS, students.ProblemPhone,
		students.ProblemEmail, students.ProblemAmount, students.ProblemPositive, students.ProblemNegative, students.ProblemTooLarge,
		students.ProblemDate, students.ProblemDueAfterExpiry, students.ProblemActiveAfterDue,
		students.ProblemAccount,
	}
	for _, p := range all {
		key, ok := problemKeys[p]
		if !ok || !i18n.Has(key) {
			t.Errorf("problem %q has no message (key %q)", p, key)
		}
	}
	if len(problemKeys) != len(all) {
		t.Errorf("problemKeys has %d entries, the test knows %d problems", len(problemKeys), len(all))
	}
}
