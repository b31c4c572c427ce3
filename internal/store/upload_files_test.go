package store_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"testing"

	"github.com/sekolah/portal/internal/store"
)

// TestUploadFiles: a sheet is kept with its job in the database, in parts, and reads back
// byte for byte; replacing, deleting and finding jobs whose sheet is missing.
func TestUploadFiles(t *testing.T) {
	eachDB(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		sheet := make([]byte, 2<<20+12345) // three parts, the last one short
		_, _ = rand.Read(sheet)
		j, err := db.CreateUploadJobWithFile(ctx, store.UploadJob{Kind: "components", FileName: "a.xlsx", FileSHA256: "abc",
			FileSize: int64(len(sheet)), State: "analysing", UploadedByID: "u1", UploadedBy: "finance"}, bytes.NewReader(sheet))
		if err != nil || !j.FileKept {
			t.Fatalf("create: %+v %v", j, err)
		}
		var back bytes.Buffer
		if n, err := db.CopyUploadFile(ctx, j.ID, store.UploadSheet, &back); err != nil || n != int64(len(sheet)) || !bytes.Equal(back.Bytes(), sheet) {
			t.Fatalf("read back %d bytes, equal %v, %v", n, bytes.Equal(back.Bytes(), sheet), err)
		}
		if n, err := db.UploadFileSize(ctx, j.ID, store.UploadSheet); err != nil || n != int64(len(sheet)) {
			t.Fatalf("size %d %v", n, err)
		}

		for _, lang := range []string{"id", "en"} {
			if _, err := db.PutUploadFile(ctx, j.ID, store.UploadErrorsPrefix+lang, bytes.NewReader([]byte("first "+lang))); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := db.PutUploadFile(ctx, j.ID, store.UploadErrorsPrefix+"id", bytes.NewReader(nil)); err != nil {
			t.Fatal(err)
		}
		back.Reset()
		if n, err := db.CopyUploadFile(ctx, j.ID, store.UploadErrorsPrefix+"id", &back); err != nil || n != 0 {
			t.Fatalf("an empty file replacing another: %d %q %v", n, back.String(), err)
		}
		if err := db.DeleteUploadFilesLike(ctx, j.ID, store.UploadErrorsPrefix); err != nil {
			t.Fatal(err)
		}
		for _, lang := range []string{"id", "en"} {
			if _, err := db.UploadFileSize(ctx, j.ID, store.UploadErrorsPrefix+lang); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("error workbook %s after delete: %v", lang, err)
			}
		}
		if _, err := db.UploadFileSize(ctx, j.ID, store.UploadSheet); err != nil {
			t.Fatalf("the sheet went with the error workbooks: %v", err)
		}

		old, err := db.CreateUploadJob(ctx, store.UploadJob{Kind: "components", FileName: "old.xlsx", FileSHA256: "def",
			FileSize: 10, FileKept: true, State: "ready", UploadedByID: "u1", UploadedBy: "finance"})
		if err != nil {
			t.Fatal(err)
		}
		missing, err := db.UploadJobsMissingSheet(ctx)
		if err != nil || len(missing) != 1 || missing[0].ID != old.ID {
			t.Fatalf("jobs missing their sheet: %+v %v", missing, err)
		}

		if err := db.DeleteUploadFiles(ctx, j.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := db.CopyUploadFile(ctx, j.ID, store.UploadSheet, &back); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("sheet after delete: %v", err)
		}
	})
}

// TestForgetUploadFiles: forgetting a job's files takes its sheet, its other files and its
// problems together and says so on the job, whose counts stay; another job keeps its own.
func TestForgetUploadFiles(t *testing.T) {
	eachDB(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		var jobs [2]store.UploadJob
		for i := range jobs {
			j, err := db.CreateUploadJobWithFile(ctx, store.UploadJob{Kind: "components", FileName: "a.xlsx", FileSHA256: "abc",
				FileSize: 5, State: "analysing", UploadedByID: "u1", UploadedBy: "finance"}, bytes.NewReader([]byte("sheet")))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.PutUploadFile(ctx, j.ID, store.UploadErrorsPrefix+"id", bytes.NewReader([]byte("errors"))); err != nil {
				t.Fatal(err)
			}
			if err := db.InsertUploadIssues(ctx, j.ID, 0, []store.UploadIssue{{Row: 4, Col: 0, Code: "nis_unknown", Args: []string{"X1"}}}); err != nil {
				t.Fatal(err)
			}
			if ok, err := db.SaveUploadAnalysis(ctx, j.ID, "analysing", store.UploadAnalysis{State: "ready", RowsTotal: 10, Issues: 1, IssuesKept: 1}); err != nil || !ok {
				t.Fatalf("analysis: %v %v", ok, err)
			}
			jobs[i] = j
		}

		if err := db.ForgetUploadFiles(ctx, jobs[0].ID); err != nil {
			t.Fatal(err)
		}
		for i, j := range jobs {
			kept := i == 1
			for _, name := range []string{store.UploadSheet, store.UploadErrorsPrefix + "id"} {
				if _, err := db.UploadFileSize(ctx, j.ID, name); (err == nil) != kept {
					t.Errorf("job %d, file %s: kept %v, want %v", i, name, err == nil, kept)
				}
			}
			if rows, _ := db.UploadErrorRows(ctx, j.ID); (len(rows) == 1) != kept {
				t.Errorf("job %d: problem rows %v, want kept %v", i, rows, kept)
			}
			got, err := db.UploadJobByID(ctx, j.ID)
			if err != nil || got.FileKept != kept || (got.IssuesKept == 1) != kept || got.Issues != 1 || got.RowsTotal != 10 {
				t.Errorf("job %d: %+v %v", i, got, err)
			}
		}
	})
}
