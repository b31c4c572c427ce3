package registration

import (
	"context"

	"github.com/sekolah/portal/internal/store"
)

// FeeTemplate is a fee template as stored: its name and lines (each a component with its
// amount, penalty, days and whether it is optional).
type FeeTemplate = store.FeeTemplate

// DayRule is a template line's due or expiry day: days after registration, or a fixed day.
type DayRule = store.DayRule

// Registration is a registration the portal made: the student, the service's bill and the
// components registered.
type Registration = store.Registration

// RegisteredComponent is one component of a registration.
type RegisteredComponent = store.RegisteredComponent

// ErrNotFound means there is no such template or registration: the store's not-found,
// which the lookups wrap.
var ErrNotFound = store.ErrNotFound

// Templates are every fee template, by name.
func (s *Service) Templates(ctx context.Context) ([]FeeTemplate, error) {
	return s.DB.ListFeeTemplates(ctx)
}

// Template is the fee template id; ErrNotFound when there is none.
func (s *Service) Template(ctx context.Context, id string) (FeeTemplate, error) {
	return s.DB.FeeTemplate(ctx, id)
}

// Registration is the registration of the service's bill billID; ErrNotFound when the
// portal made none under it.
func (s *Service) Registration(ctx context.Context, billID string) (Registration, error) {
	return s.DB.RegistrationByBillID(ctx, billID)
}
