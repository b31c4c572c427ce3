package corrections

import (
	"context"
	"fmt"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/store"
)

// UndoPlan is what undoing an upload does: the components it created that are still
// unpaid are cancelled (those the ledger does not hold yet too: the job reads them at the
// service), those already paid are kept; those cancelled already are left alone.
type UndoPlan struct {
	Cancel    []store.UploadCreatedComponent
	Paid      []store.UploadCreatedComponent
	Cancelled int
	Amount    int64 // of those to cancel, as the ledger knows them
}

// Undo reads what undoing upload uploadID would do.
func Undo(ctx context.Context, db *store.DB, uploadID string) (UndoPlan, error) {
	comps, err := db.UploadCreatedComponents(ctx, uploadID)
	if err != nil {
		return UndoPlan{}, fmt.Errorf("corrections: undo: %w", err)
	}
	var p UndoPlan
	for _, c := range comps {
		switch c.Kind {
		case 1:
			p.Paid = append(p.Paid, c)
		case 2:
			p.Cancelled++
		default:
			p.Cancel = append(p.Cancel, c)
			p.Amount += c.Amount
		}
	}
	return p, nil
}

// Request is the job that carries the undo out: the unpaid ones cancelled with reason,
// the paid ones kept as items left alone (so the job's page lists them, with why).
func (p UndoPlan) Request(uploadID, reason string) Request {
	req := Request{Kind: KindCancel, Source: SourceUpload, UploadID: uploadID, Reason: reason, AmountBefore: p.Amount,
		LeftOut: p.Cancelled}
	for _, c := range p.Cancel {
		req.Items = append(req.Items, Item{Component: bill(c)})
	}
	for _, c := range p.Paid {
		req.Items = append(req.Items, Item{Component: bill(c), Skip: ProblemPaid})
	}
	return req
}

func bill(c store.UploadCreatedComponent) billing.Bill {
	return billing.Bill{ComponentID: c.ID, NIS: c.NIS, StudentName: c.StudentName, Name: c.Name, Amount: c.Amount}
}
