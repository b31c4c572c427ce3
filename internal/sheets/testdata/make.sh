#!/usr/bin/env bash
# Makes the fixtures of internal/sheets from the sources beside this script, with
# LibreOffice (soffice 7.4, headless). See README.md for what each file is.
set -euo pipefail
cd "$(dirname "$0")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# A profile of its own, so the machine's LibreOffice settings neither matter nor change.
lo() { soffice -env:UserInstallation="file://$work/profile" --headless "$@" >/dev/null 2>&1; }

# 1. book: the .fods source to .xlsx. A headless LibreOffice has no view, so it writes
#    neither the active sheet nor (the active sheet being always shown) the hidden one: the
#    workbook's view is set in the .xlsx's workbook.xml, as Excel would save it (sheet 3
#    "Tagihan (2)" active, sheet 1 "Arsip 2026" hidden). LibreOffice keeps an imported
#    workbook's view, so the .xls and .ods it makes from that .xlsx have it too.
lo --convert-to xlsx --outdir "$work" book.fods
python3 - "$work/book.xlsx" book.xlsx <<'PY'
import re, sys, zipfile
src, dst = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
    for item in zin.infolist():
        data = zin.read(item.filename)
        if item.filename == "xl/workbook.xml":
            s = data.decode()
            s = re.sub(r'activeTab="\d+"', 'activeTab="2"', s)
            s = s.replace('name="Arsip 2026" sheetId="1" state="visible"', 'name="Arsip 2026" sheetId="1" state="hidden"')
            data = s.encode()
        zout.writestr(item, data)
PY
lo --convert-to xls --outdir . book.xlsx
lo --convert-to ods --outdir "$work" book.xlsx
# A headless LibreOffice writes no view settings into an .ods either: the active table
# goes into settings.xml as LibreOffice writes it from a window.
python3 - "$work/book.ods" book.ods <<'PY'
import sys, zipfile
src, dst = sys.argv[1], sys.argv[2]
view = ('<config:config-item-map-indexed config:name="Views"><config:config-item-map-entry>'
        '<config:config-item config:name="ViewId" config:type="string">view1</config:config-item>'
        '<config:config-item config:name="ActiveTable" config:type="string">Tagihan (2)</config:config-item>'
        '</config:config-item-map-entry></config:config-item-map-indexed>')
with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
    for item in zin.infolist():
        data = zin.read(item.filename)
        if item.filename == "settings.xml":
            s = data.decode()
            s = s.replace('<config:config-item-set config:name="ooo:view-settings">',
                          '<config:config-item-set config:name="ooo:view-settings">' + view, 1)
            data = s.encode()
        # mimetype first and stored, as ODF requires
        zout.writestr(item, data, compress_type=zipfile.ZIP_STORED if item.filename == "mimetype" else zipfile.ZIP_DEFLATED)
PY

# 2. dates1904: a date on the 1904 date system (the .fods null date is 1904-01-01).
lo --convert-to xls --outdir . dates1904.fods
lo --convert-to xlsx --outdir . dates1904.fods

# 3. typed: what a bursar types, read by LibreOffice's CSV import as a computer set to
#    English (en-US, 1033: "350.000" is 350 and "10/08/2027" is 8 October) or to
#    Indonesian (id-ID, 1057: 350000 and 10 August). Options: comma, double quote,
#    UTF-8, from line 1, standard columns, the language, quoted fields not as text,
#    special numbers (dates) detected.
for lang in en:1033 id:1057; do
  name=${lang%%:*} code=${lang##*:}
  cp typed.csv "$work/typed-$name.csv"
  lo --infilter="CSV:44,34,76,1,,$code,false,true" --convert-to xls --outdir . "$work/typed-$name.csv"
  lo --infilter="CSV:44,34,76,1,,$code,false,true" --convert-to ods --outdir . "$work/typed-$name.csv"
done

# 4. CSV as LibreOffice exports it: the sheet "Tagihan (2)" (3) of book.ods in
#    Windows-1252 (LibreOffice's encoding 1) with ';' (é, ’ are single bytes there), and
#    in UTF-8 (76) with ',', each cell as shown.
lo --convert-to 'csv:Text - txt - csv (StarCalc):59,34,1,1,,0,false,true,true,false,false,3' --outdir "$work" book.ods
mv "$work/book-Tagihan (2).csv" cp1252-semicolon.csv
lo --convert-to 'csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,true,false,false,3' --outdir "$work" book.ods
# The same with a byte order mark, as Excel's "CSV UTF-8" writes it.
{ printf "\xEF\xBB\xBF"; cat "$work/book-Tagihan (2).csv"; } > utf8-bom-comma.csv
ls -l
