package students

import (
	"context"
	"fmt"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/store"
)

// Entry is the roster's record of a student as the service has it, noted at at and
// marked with where it came from (store.SourceSync, SourcePortal, ...).
func Entry(s billing.Student, source string, at time.Time) store.Student {
	keyName := s.KeyName
	if keyName == "" {
		keyName = billing.DefaultKeyName // what the service stores when none is sent
	}
	return store.Student{NIS: s.NIS, Name: s.Name, KeyName: keyName, Phone: s.Phone, Email: s.Email,
		Description: s.Description, Source: source, SyncedAt: at}
}

// Mirror writes students the service has confirmed into the roster: the one way a
// student of the service enters it (the writer after a change, a page that meets a
// student the roster lacks, the sync job).
func Mirror(ctx context.Context, db *store.DB, ss []billing.Student, source string, at time.Time) error {
	entries := make([]store.Student, len(ss))
	for i, s := range ss {
		entries[i] = Entry(s, source, at)
	}
	return db.UpsertStudents(ctx, entries)
}

// Fetch reads a student the roster lacks from the service and adds it to the roster
// (source sync). billing.ErrNotFound means the service does not know the NIS either.
func Fetch(ctx context.Context, c *billing.Client, db *store.DB, nis string, at time.Time) (store.Student, error) {
	s, err := c.Student(ctx, nis)
	if err != nil {
		return store.Student{}, err
	}
	if s.NIS == "" {
		s.NIS = nis
	}
	if err := Mirror(ctx, db, []billing.Student{s}, store.SourceSync, at); err != nil {
		return store.Student{}, fmt.Errorf("students: add %s to the roster: %w", nis, err)
	}
	return db.StudentByNIS(ctx, s.NIS)
}

// MirrorList writes every student on the service's student list into the roster (source
// sync), a page of billing.MaxStudentLimit at a time: the whole roster in a few calls,
// where a sync that fetches the students one by one makes one call each. It returns how
// many were written.
func MirrorList(ctx context.Context, c *billing.Client, db *store.DB, at time.Time) (int, error) {
	var page []billing.Student
	n := 0
	flush := func() error {
		if err := Mirror(ctx, db, page, store.SourceSync, at); err != nil {
			return fmt.Errorf("students: mirror the student list: %w", err)
		}
		n += len(page)
		page = page[:0]
		return nil
	}
	for s, err := range c.AllStudents(ctx, billing.StudentQuery{}) {
		if err != nil {
			return n, fmt.Errorf("students: read the student list: %w", err)
		}
		page = append(page, s)
		if len(page) == billing.MaxStudentLimit {
			if err := flush(); err != nil {
				return n, err
			}
		}
	}
	return n, flush()
}
