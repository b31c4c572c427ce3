package uploads

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/sekolah/portal/internal/jobs"
	"github.com/sekolah/portal/internal/store"
)

// The government-aid flags of a Dapodik export (Penerima KIP, Penerima KPS, Layak PIP)
// are the portal's own: the service knows nothing of them. A students sheet that has them
// keeps every valid row's (uploadAid, by NIS); the commit records them for the students
// the roster has (store.SetStudentAid), and the job for each new student once the service
// has created them, so the fee plans' discounts can offer those students as scholarship
// candidates.

// uploadAid is the upload file that keeps a students sheet's aid flags by NIS (JSON).
const uploadAid = "aid"

// aidItem is a student's aid flags as the analysis and a chunk keep them.
type aidItem struct {
	KIP bool `json:"kip,omitempty"`
	KPS bool `json:"kps,omitempty"`
	PIP bool `json:"pip,omitempty"`
}

func (a aidItem) flags() store.StudentAid {
	return store.StudentAid{KIP: a.KIP, KPS: a.KPS, PIP: a.PIP}
}

// saveAid keeps a sheet's aid flags with the upload, for the commit.
func (r *Runner) saveAid(ctx context.Context, id string, aid map[string]store.StudentAid) error {
	keep := make(map[string]aidItem, len(aid))
	for nis, a := range aid {
		keep[nis] = aidItem{KIP: a.KIP, KPS: a.KPS, PIP: a.PIP}
	}
	b, err := json.Marshal(keep)
	if err != nil {
		return err
	}
	_, err = r.db.PutUploadFile(ctx, id, uploadAid, bytes.NewReader(b))
	return err
}

// applyAid records the upload's aid flags of the students the roster has now (those the
// job creates get theirs when they are created): it returns how many were recorded.
func (r *Runner) applyAid(ctx context.Context, id string) (int, error) {
	var buf bytes.Buffer
	if _, err := r.db.CopyUploadFile(ctx, id, uploadAid, &buf); err != nil {
		if isNotFound(err) {
			return 0, nil
		}
		return 0, err
	}
	var keep map[string]aidItem
	if err := json.Unmarshal(buf.Bytes(), &keep); err != nil {
		return 0, err
	}
	aid := make(map[string]store.StudentAid, len(keep))
	for nis, a := range keep {
		aid[nis] = a.flags()
	}
	missing, err := r.db.SetStudentAid(ctx, aid)
	return len(aid) - missing, err
}

// recordAid records the aid flags of the students of items, created (or found) at the
// service and so in the roster now. The rows are done whatever happens here: a failure is
// logged, not returned.
func (r *Runner) recordAid(ctx context.Context, jobID string, w *chunkRows, items []*jobs.Item) {
	aid := map[string]store.StudentAid{}
	for _, it := range items {
		if st, ok := w.studs[it.Key]; ok && st.Aid != nil {
			aid[st.NIS] = st.Aid.flags()
		}
	}
	if len(aid) == 0 {
		return
	}
	if _, err := r.db.SetStudentAid(context.WithoutCancel(ctx), aid); err != nil {
		r.log.Error("upload job: record the students' aid flags", "job", jobID, "err", err)
	}
}
