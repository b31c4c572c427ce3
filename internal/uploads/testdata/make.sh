#!/usr/bin/env bash
# Makes the fixtures of internal/uploads from the sources beside this script, with
# LibreOffice (soffice 7.4, headless) and Python 3. See README.md for what each file is.
set -euo pipefail
cd "$(dirname "$0")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# A profile of its own, so the machine's LibreOffice settings neither matter nor change.
lo() { soffice -env:UserInstallation="file://$work/profile" --headless "$@" >/dev/null 2>&1; }

# 1. A components sheet and a students sheet typed as a bursar in Indonesia types them,
#    read by LibreOffice's CSV import as a computer set to Indonesian (id-ID, 1057) with
#    the NIS column as text (column format 2), saved as .xls and .ods. CSV filter options:
#    separator, quote, encoding (76: UTF-8), first line, column formats, language, quoted
#    fields as text, detect special numbers (dates).
for name in tagihan siswa; do
  cp "$name.csv" "$work/$name-id.csv"
  lo --infilter="CSV:44,34,76,1,1/2,1057,false,true" --convert-to xls --outdir . "$work/$name-id.csv"
  lo --infilter="CSV:44,34,76,1,1/2,1057,false,true" --convert-to ods --outdir . "$work/$name-id.csv"
done
# 2. The components sheet typed on a computer set to English (en-US, 1033), every column
#    standard: 0012345 is the number 12345, 350.000 is 350, 10/08/2027 is 8 October and
#    30/11/2027 (no month 30) stays a text.
cp tagihan.csv "$work/tagihan-en.csv"
lo --infilter="CSV:44,34,76,1,,1033,false,true" --convert-to xls --outdir . "$work/tagihan-en.csv"
lo --infilter="CSV:44,34,76,1,,1033,false,true" --convert-to ods --outdir . "$work/tagihan-en.csv"
# 3. The students sheet as LibreOffice exports CSV for Excel in Indonesia: ';' and
#    Windows-1252 (encoding 1), each cell as shown.
mkdir "$work/csv"
lo --convert-to 'csv:Text - txt - csv (StarCalc):59,34,1,1,,0,false,true,true,false,false,1' --outdir "$work/csv" siswa-id.ods
cp "$work/csv/siswa-id-siswa-id.csv" siswa-cp1252.csv # LibreOffice names it <file>-<sheet>.csv

# 4. Dapodik's students export: dapodik.py writes it as a flat OpenDocument spreadsheet
#    (its merged headings as spans), which LibreOffice saves as .xls (what Dapodik
#    downloads) and .ods.
python3 dapodik.py > "$work/dapodik.fods"
lo --convert-to xls --outdir . "$work/dapodik.fods"
lo --convert-to ods --outdir . "$work/dapodik.fods"
ls -l
