package parents

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/letters"
	"github.com/sekolah/portal/internal/school"
	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/internal/students"
)

// ErrNoReceipt: the student has no payment under that reference.
var ErrNoReceipt = errors.New("parents: no such receipt")

// Page is what the parent page shows: one student's, and nothing of anyone else's.
type Page struct {
	Student store.Student
	// Today is now in the school's zone.
	Today time.Time
	// Bill is what is unpaid, priced today (the bill letter's reading: what can be paid,
	// what opens later, what expired).
	Bill letters.Letter
	// Payments are the payments made, newest first, each a receipt.
	Payments []Payment
	School   school.Profile
}

// Payment is one payment (one reference number) and the components it paid.
type Payment struct {
	Ref    string
	PaidAt time.Time
	Total  int64
	Items  []PaidItem
}

// PaidItem is one component a payment paid.
type PaidItem struct {
	Name        string
	AccountCode string
	Amount      int64 // what was paid for it, its late fee included
	Penalty     int64
}

// Page reads the parent page of token; ErrNoLink for a wrong or renewed token, or a
// student no longer on the roster.
func (s *Service) Page(ctx context.Context, token string) (Page, error) {
	nis, err := s.Resolve(ctx, token)
	if err != nil {
		return Page{}, err
	}
	st, err := s.DB.StudentByNIS(ctx, nis)
	if errors.Is(err, store.ErrNotFound) {
		return Page{}, ErrNoLink
	}
	if err != nil {
		return Page{}, fmt.Errorf("parents: %w", err)
	}
	today := s.Clock.Today()
	acc, err := students.LoadAccount(ctx, s.Ledger, nis, today)
	if err != nil && !errors.Is(err, billing.ErrNotFound) {
		return Page{}, fmt.Errorf("parents: %w", err)
	}
	prof, err := s.School.Profile(ctx)
	if err != nil {
		return Page{}, fmt.Errorf("parents: %w", err)
	}
	p := Page{Student: st, Today: today, Bill: letters.BillOf(st, acc.Bills, today), Payments: paymentsOf(acc.Bills), School: prof}
	if p.Student.Name == "" {
		p.Student.Name = p.Bill.Student
	}
	return p, nil
}

// Receipt is the page of token and its payment ref; ErrNoReceipt when the student has
// none under ref.
func (s *Service) Receipt(ctx context.Context, token, ref string) (Page, Payment, error) {
	p, err := s.Page(ctx, token)
	if err != nil {
		return Page{}, Payment{}, err
	}
	for _, pay := range p.Payments {
		if pay.Ref == ref {
			return p, pay, nil
		}
	}
	return p, Payment{}, ErrNoReceipt
}

// paymentsOf groups the paid components by their payment's reference, newest first.
func paymentsOf(bills []billing.Bill) []Payment {
	byRef := map[string]*Payment{}
	var out []*Payment
	for _, b := range bills {
		if b.State != billing.StatePaid {
			continue
		}
		ref := b.RefNumber
		if ref == "" {
			ref = b.ComponentID // paid without a reference: a receipt of its own
		}
		p, ok := byRef[ref]
		if !ok {
			p = &Payment{Ref: ref, PaidAt: b.PaidAt}
			byRef[ref] = p
			out = append(out, p)
		}
		paid := b.AmountPaid
		if paid == 0 {
			paid = b.Amount
		}
		pen := max(paid-b.Amount, 0)
		p.Items = append(p.Items, PaidItem{Name: b.Name, AccountCode: b.AccountCode, Amount: paid, Penalty: pen})
		p.Total += paid
		if b.PaidAt.After(p.PaidAt) {
			p.PaidAt = b.PaidAt
		}
	}
	slices.SortStableFunc(out, func(a, b *Payment) int { return cmp.Or(b.PaidAt.Compare(a.PaidAt), cmp.Compare(a.Ref, b.Ref)) })
	res := make([]Payment, len(out))
	for i, p := range out {
		res[i] = *p
	}
	return res
}
