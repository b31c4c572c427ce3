-- A student's standing at the school, kept by the portal (the service has no such field):
-- active, or graduated (lulus), moved to another school (pindah) or left (keluar) on a day,
-- with a note. A leaver keeps their arrears and is not billed by a class's fee plan. And
-- the government-aid flags a Dapodik students export carries (Penerima KIP, Penerima KPS,
-- Layak PIP), so the fee plans' discounts can offer those students as scholarship
-- candidates; they are never a discount by themselves.

-- +goose Up
ALTER TABLE students ADD COLUMN status TEXT NOT NULL DEFAULT 'active';
ALTER TABLE students ADD COLUMN status_on TIMESTAMP;
ALTER TABLE students ADD COLUMN status_note TEXT NOT NULL DEFAULT '';
ALTER TABLE students ADD COLUMN aid_kip BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE students ADD COLUMN aid_kps BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE students ADD COLUMN aid_pip BOOLEAN NOT NULL DEFAULT FALSE;
CREATE INDEX students_status ON students (status, nis);

-- +goose Down
DROP INDEX students_status;
ALTER TABLE students DROP COLUMN aid_pip;
ALTER TABLE students DROP COLUMN aid_kps;
ALTER TABLE students DROP COLUMN aid_kip;
ALTER TABLE students DROP COLUMN status_note;
ALTER TABLE students DROP COLUMN status_on;
ALTER TABLE students DROP COLUMN status;
