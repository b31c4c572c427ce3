package web

import (
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/static"
)

// maxFormBytes bounds ordinary form posts; uploads get their own limit on their route.
const maxFormBytes = 1 << 20

// schoolFormBytes bounds the school profile's form: a photo of a logo taken with a phone
// still arrives whole, to be refused with a message rather than a broken form.
const schoolFormBytes = 12 << 20

// New builds the portal's HTTP handler: every route is registered here, grouped by section.
// It only builds routes: the services come started in d.App.
func New(d Deps) http.Handler {
	h := newHandler(d)
	r := chi.NewRouter()

	// Global stack: request id, client address (forwarding headers only from trusted
	// proxies), panic → 500 page, one log line and the metrics' timing per request (by
	// route pattern), security headers on everything, pages gzipped for browsers that accept
	// them (compress.go), and 30 s for a body to arrive (the upload and the school's logo get more below).
	r.Use(middleware.RequestID, h.clientAddress)
	r.Use(h.requestLogger, h.measure, h.recoverer, h.securityHeaders, compress, h.bodyDeadline(formBodyTimeout))
	r.NotFound(h.withSession(h.notFound))
	r.MethodNotAllowed(h.withSession(func(w http.ResponseWriter, r *http.Request) {
		h.renderError(w, r, http.StatusMethodNotAllowed, "")
	}))

	// Outside sessions: health and embedded assets.
	r.Get("/healthz", h.healthz)
	r.Handle("/static/*", static.Handler())

	// The billing service's payment callbacks: no session, no CSRF (the signature is the
	// proof); the handler bounds the body.
	r.Post("/hooks/payments", h.receivePaymentCallback)
	// The WhatsApp Cloud API's webhook: its subscription check, then signed notifications.
	r.Get("/hooks/whatsapp", h.whatsAppHandshake)
	r.Post("/hooks/whatsapp", h.receiveWhatsAppWebhook)

	// The upload form's POST: the body limit is the upload limit; only a person allowed to
	// upload, from the portal's own pages (the cross-origin check comes first), gets the
	// body read (a large file into a temporary file), before the CSRF check looks for the
	// token in it.
	r.Group(func(r chi.Router) {
		r.Use(h.bodyDeadline(uploadBodyTimeout), limitBody(h.cfg.UploadMaxBytes+uploadFormOverhead), h.loadSession, h.crossOrigin, h.requireSignIn,
			h.require(auth.WriteBilling), h.parseUpload, h.csrf)
		r.Post("/uploads", h.receiveUpload)
	})

	// The school profile's form carries the logo: a body limit of its own, and only an
	// admin's body is read before the CSRF check looks for the token in it.
	r.Group(func(r chi.Router) {
		r.Use(h.bodyDeadline(schoolBodyTimeout), limitBody(schoolFormBytes), h.loadSession, h.crossOrigin, h.requireSignIn,
			h.require(auth.ManageSettings), h.readForm, h.csrf)
		r.Post("/settings/school", h.saveSchoolSettings)
	})

	r.Group(func(r chi.Router) {
		// Session → CSRF, for everything a person sees.
		r.Use(limitBody(maxFormBytes), h.loadSession, h.crossOrigin, h.readForm, h.csrf)

		// Sign-in and language, open to everyone.
		r.Get("/login", h.showLogin)
		r.Post("/login", h.submitLogin)
		r.Post("/lang", h.switchLanguage)

		// Public registration form: no sign-in; 404 until an admin switches it on.
		r.Get("/register", h.showPublicRegistration)
		r.Post("/register", h.submitPublicRegistration)
		r.Get("/register/thanks", h.publicRegistrationThanks)
		r.Get("/register/logo", h.showPublicLogo)

		// The parent page: no sign-in, the link's token is the key; rate-limited per
		// address, never indexed.
		r.Route("/p/{token}", func(r chi.Router) {
			r.Use(h.parentGuard)
			r.Get("/", h.showParentPage)
			r.Get("/receipt", h.showParentReceipt)
			r.Get("/letter", h.showParentLetter)
			r.Get("/logo", h.showParentLogo)
		})

		r.Group(func(r chi.Router) {
			r.Use(h.requireSignIn)
			r.Post("/logout", h.logout)

			// The person's own account: sessions ("sign out everywhere") and password.
			r.Get("/account", h.showAccount)
			r.Post("/account/password", h.changeOwnPassword)
			r.Post("/account/sessions/end-all", h.signOutEverywhere)
			r.Post("/account/sessions/{sid}/end", h.endOwnSession)

			// Dashboard: the figures for principals, finance and admins; POST refreshes them.
			r.With(h.require(auth.ReadBilling)).Get("/", h.dashboard)
			r.With(h.require(auth.ReadBilling)).Post("/", h.dashboard)

			// Reports, each also as a file (?format=xlsx or csv); POST refreshes the figures.
			r.Route("/reports", func(r chi.Router) {
				r.Use(h.require(auth.ReadReports))
				r.Get("/", h.reportsIndex)
				r.Get("/payments", h.reportPayments)
				r.Post("/payments", h.reportPayments)
				r.Get("/outstanding", h.reportOutstanding)
				r.Post("/outstanding", h.reportOutstanding)
				r.Get("/statement", h.reportStatement)
				r.Post("/statement", h.reportStatement)
				r.Get("/accounts", h.reportAccounts)
				r.Post("/accounts", h.reportAccounts)
				r.Get("/alumni", h.reportAlumni)
				r.Post("/alumni", h.reportAlumni)
			})

			// Closing the day at the counter (tutup kas): every cashier's cash for those who
			// read reports; each cashier signs their own; admins reopen.
			r.Route("/closing", func(r chi.Router) {
				r.Use(h.require(auth.ReadReports))
				r.Get("/", h.showClosing)
				r.With(h.require(auth.WriteBilling)).Post("/", h.createClosing)
				r.Get("/{id}", h.printClosing)
				r.With(h.require(auth.ManageSettings)).Post("/{id}/reopen", h.reopenClosing)
			})

			// Students: the roster, one student's bills, and the writes through h.writer.
			r.Route("/students", func(r chi.Router) {
				r.Use(h.require(auth.ReadBilling))
				r.Get("/", h.listStudents)
				r.Get("/sync", h.syncProgress)
				r.With(h.require(auth.WriteBilling)).Post("/sync", h.startSync)
				r.With(h.require(auth.WriteBilling)).Get("/new", h.newStudent)
				r.With(h.require(auth.WriteBilling)).Post("/new", h.createStudent)
				// Letters of a class or of the arrears report's selection, one per page.
				r.Get("/letters", h.showLetters)
				r.With(h.require(auth.WriteBilling)).Post("/letters/record", h.recordLetters)
				r.Route("/{nis}", func(r chi.Router) {
					r.Use(h.studentCtx)
					r.Get("/", h.showStudent)
					r.Get("/statement", h.studentStatement)
					r.Get("/letter", h.showLetter)
					// Arrears follow-ups: the reminder letter for all who read bills; recording
					// a follow-up (WhatsApp, letter sent) for finance staff.
					r.Get("/reminder", h.showReminder)
					r.With(h.require(auth.WriteBilling)).Post("/followup", h.followUpStudent)
					r.Group(func(r chi.Router) {
						r.Use(h.require(auth.WriteBilling))
						r.Get("/edit", h.editStudent)
						r.Post("/edit", h.updateStudent)
						// The parents' contacts and their page's link.
						r.Get("/contacts", h.editStudentContacts)
						r.Post("/contacts", h.saveStudentContacts)
						r.Post("/parent-link", h.renewParentLink)
						r.Get("/delete", h.confirmDeleteStudent)
						r.Post("/delete", h.deleteStudent)
						r.Get("/components/new", h.newComponents)
						r.Post("/components/new", h.createComponents)
						// Corrections: one component's edit, the cancel of some (confirmed first).
						r.Get("/components/cancel", h.confirmCancelComponents)
						r.Post("/components/cancel", h.cancelComponents)
						r.With(h.componentCtx).Get("/components/{cid}/edit", h.editComponent)
						r.With(h.componentCtx).Post("/components/{cid}/edit", h.updateComponent)
						// Instalments (cicilan): one component split into dated parts (form,
						// preview, confirm: a correction job), and a split undone.
						r.With(h.componentCtx).Get("/components/{cid}/instalments", h.newInstalments)
						r.With(h.componentCtx).Post("/components/{cid}/instalments/preview", h.previewInstalments)
						r.With(h.componentCtx).Post("/components/{cid}/instalments/confirm", h.confirmInstalments)
						r.Get("/instalments/{orig}/undo", h.confirmUndoInstalments)
						r.Post("/instalments/{orig}/undo", h.undoInstalments)
						// The student's status (active, graduated, moved, left), and a leaver's
						// bills due after they left cancelled (preview, then a correction job).
						r.Get("/status", h.editStudentStatus)
						r.Post("/status", h.updateStudentStatus)
						r.Get("/leave", h.previewLeave)
						r.Post("/leave", h.confirmLeave)
					})
				})
			})

			// Messages to parents in bulk (the outbox): arrears follow-ups of the arrears
			// report's selection, a term's bill notices for a class; previewed, then queued.
			r.Group(func(r chi.Router) {
				r.Use(h.require(auth.WriteBilling))
				r.Get("/followups/bulk", h.previewFollowUps)
				r.Post("/followups/bulk", h.sendFollowUps)
				r.Get("/notices", h.previewNotices)
				r.Post("/notices", h.sendNotices)
			})

			// Bills: the browser and the upcoming dues.
			r.Route("/bills", func(r chi.Router) {
				r.Use(h.require(auth.ReadBilling))
				r.Get("/", h.listBills)
				r.Get("/upcoming", h.listUpcomingBills)
				// Bulk corrections of the list's current selection: form, preview, confirm.
				r.Group(func(r chi.Router) {
					r.Use(h.require(auth.WriteBilling))
					r.Get("/correct", h.correctBills)
					r.Post("/correct/preview", h.previewBillsCorrection)
					r.Post("/correct/confirm", h.confirmBillsCorrection)
				})
				r.With(h.require(auth.WriteBilling)).Get("/export-template.xlsx", h.exportBillsTemplate)
			})

			// Fee plans: the plans, applying them (the preview, its confirmation, the apply
			// jobs and their undo), the correction of their unpaid components after a change,
			// the kartu SPP, the scholarship candidates; the students' discounts and the
			// discounts report. Principals read; finance and admins write.
			r.Route("/plans", func(r chi.Router) {
				r.Use(h.require(auth.ReadBilling))
				r.Get("/", h.listPlans)
				r.Get("/candidates", h.listCandidates)
				r.With(h.require(auth.WriteBilling)).Get("/new", h.newPlan)
				r.With(h.require(auth.WriteBilling)).Post("/", h.createPlan)
				r.Route("/{id}", func(r chi.Router) {
					r.Use(h.planCtx)
					r.Get("/", h.showPlan)
					r.Get("/kartu", h.showKartu)
					r.With(h.studentCtx).Get("/kartu/{nis}", h.showCard)
					r.Get("/jobs/{job}", h.showPlanJob)
					r.Group(func(r chi.Router) {
						r.Use(h.require(auth.WriteBilling))
						r.Post("/", h.updatePlan)
						r.Get("/edit", h.editPlan)
						r.Post("/apply", h.applyPlan)
						r.Post("/apply/confirm", h.confirmApply)
						r.Get("/correct", h.correctPlan)
						r.Post("/correct/confirm", h.confirmCorrectPlan)
						r.Post("/jobs/{job}/undo", h.undoPlanJob)
						r.Post("/jobs/{job}/retry", h.retryPlanJob)
						r.Post("/jobs/{job}/hurry", h.hurryPlanJob)
					})
				})
			})
			r.Route("/students/{nis}/discounts", func(r chi.Router) {
				r.Use(h.require(auth.ReadBilling), h.studentCtx)
				r.Get("/", h.listDiscounts)
				r.Group(func(r chi.Router) {
					r.Use(h.require(auth.WriteBilling))
					r.Post("/", h.grantDiscount)
					r.Get("/correct", h.correctDiscounts)
					r.Post("/correct/confirm", h.confirmCorrectDiscounts)
					r.Get("/{did}", h.editDiscount)
					r.Post("/{did}", h.changeDiscount)
					r.Post("/{did}/delete", h.removeDiscount)
				})
			})
			r.With(h.require(auth.ReadReports)).Get("/reports/discounts", h.reportDiscounts)

			// Correction jobs: their progress (bulk corrections, undone uploads).
			r.With(h.require(auth.WriteBilling)).Get("/corrections/{id}", h.showCorrection)

			// Counter payments: recording needs WriteBilling; a receipt is a read.
			r.Route("/payments", func(r chi.Router) {
				r.With(h.require(auth.ReadBilling)).Get("/receipt", h.showPaymentReceipt)
				r.Group(func(r chi.Router) {
					r.Use(h.require(auth.WriteBilling))
					r.Get("/new", h.newPayment)
					r.Get("/confirm", h.confirmPayment)
					r.Post("/confirm", h.confirmPayment)
					// An expired item: extended, then paid, in one confirmed step.
					r.Get("/extend", h.extendPayment)
					r.Post("/extend", h.extendAndPay)
					r.Post("/", h.createPayment)
				})
			})

			// The school's logo, for the documents every signed-in person may print.
			r.Get("/school/logo", h.showSchoolLogo)

			// Audit log.
			r.With(h.require(auth.ReadAudit)).Get("/audit", h.listAudit)

			// Bulk uploads of components and students (finance and admin).
			r.Group(func(r chi.Router) {
				r.Use(h.require(auth.WriteBilling))
				r.Get("/uploads", h.showUploadForm)
				r.Get("/uploads/history", h.listUploads)
				r.Get("/uploads/templates/{kind}.xlsx", h.downloadTemplate)
				r.Route("/uploads/{id}", func(r chi.Router) {
					r.Use(h.uploadCtx)
					r.Get("/", h.showUpload)
					r.Get("/status", h.uploadStatus)
					r.Get("/issues", h.uploadIssues)
					r.Get("/errors.xlsx", h.downloadErrorWorkbook)
					r.Post("/analyse", h.analyseUpload)
					r.Post("/commit", h.commitUpload)
					r.Post("/retry", h.retryUpload)
					r.Post("/discard", h.discardUpload)
					r.Post("/undo", h.undoUpload) // a correction job: correction_undo.go
				})
			})

			// Registration (checkout): the wizard, and the record of each registration.
			r.With(h.require(auth.WriteBilling)).Get("/registrations/new", h.newRegistration)
			r.With(h.require(auth.WriteBilling)).Post("/registrations/new", h.submitRegistration)
			r.With(h.require(auth.ReadBilling)).Get("/registrations/{billID}", h.showRegistration)
			// The public form's applications: held ones approved or rejected by staff.
			r.Group(func(r chi.Router) {
				r.Use(h.require(auth.WriteBilling))
				r.Get("/registrations/applications", h.listApplications)
				r.Post("/registrations/applications/{id}/approve", h.approveApplication)
				r.Post("/registrations/applications/{id}/reject", h.rejectApplication)
			})

			// Settings: fee templates and the public registration form (admins). Full paths
			// rather than a /settings sub-router, so other sections can add settings pages.
			r.Group(func(r chi.Router) {
				r.Use(h.require(auth.ManageSettings))
				r.Get("/settings/fee-templates", h.listFeeTemplates)
				r.Get("/settings/fee-templates/new", h.newFeeTemplate)
				r.Post("/settings/fee-templates", h.createFeeTemplate)
				r.With(h.feeTemplateCtx).Get("/settings/fee-templates/{id}", h.editFeeTemplate)
				r.With(h.feeTemplateCtx).Post("/settings/fee-templates/{id}", h.updateFeeTemplate)
				r.With(h.feeTemplateCtx).Post("/settings/fee-templates/{id}/delete", h.deleteFeeTemplate)
				r.Get("/settings/registration", h.showRegistrationSettings)
				r.Post("/settings/registration", h.saveRegistrationSettings)
				r.Get("/settings/school", h.showSchoolSettings)
				r.Post("/settings/school/logo/delete", h.deleteSchoolLogo)
				r.Get("/settings/messages", h.showMessagesSettings)
				r.Post("/settings/messages", h.saveMessagesSettings)
				r.Post("/settings/messages/test", h.sendTestMessage)
				r.Post("/settings/messages/sending", h.saveOutboxSettings)
				r.Get("/settings/messages/sent", h.listSentMessages)
				r.Get("/settings/data", h.showDataSettings)
				r.Post("/settings/data/reconcile", h.askReconcile)
			})

			// Staff accounts (admins only).
			r.Route("/staff", func(r chi.Router) {
				r.Use(h.require(auth.ManageStaff))
				r.Get("/", h.listStaff)
				r.Post("/", h.createStaff)
				r.Route("/{id}", func(r chi.Router) {
					r.Use(h.staffCtx)
					r.Get("/", h.showStaff)
					r.Post("/role", h.changeStaffRole)
					r.Post("/disable", h.disableStaff)
					r.Post("/enable", h.enableStaff)
					r.Post("/password", h.resetStaffPassword)
					r.Post("/sessions/end-all", h.endStaffSessions)
					r.Post("/sessions/{sid}/end", h.endStaffSession)
				})
			})
		})
	})
	return r
}

// crossOrigin refuses state-changing requests that the browser marks as coming from
// another site (Sec-Fetch-Site / Origin), before the CSRF token is even looked at.
func (h *Handler) crossOrigin(next http.Handler) http.Handler {
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.log.Warn("cross-origin request refused", "path", r.URL.Path, "origin", r.Header.Get("Origin"))
		h.renderError(w, r, http.StatusForbidden, "")
	}))
	return cop.Handler(next)
}

// withSession gives handlers outside the session group (404, 405) the person's language
// and shell.
func (h *Handler) withSession(fn http.HandlerFunc) http.HandlerFunc {
	return h.loadSession(fn).ServeHTTP
}
