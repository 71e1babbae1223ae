#!/usr/bin/env bash
# cover-letter.sh OLD NEW: carry the subject and text of the cover letter
# OLD into NEW, a fresh "git format-patch --cover-letter" output whose
# shortlog and diffstat are current.
set -euo pipefail
old=$1 new=$2

subject=$(awk '/^Subject:/{sub(/^Subject: \[PATCH[^]]*\] /,""); s=$0; cont=1; next}
	cont && /^[ \t]/{sub(/^[ \t]+/," "); s=s $0; next} {cont=0} END{print s}' "$old")
# The text runs from the first blank line after the headers to the shortlog
# line ("Name (N):").
awk 'body==0 && /^$/ {body=1; next}
     body==1 && /^[^ \t].* \([0-9]+\):$/ {exit}
     body==1 {print}' "$old" > "$new.blurb"
# Drop trailing blank lines of the text.
sed -i -e :a -e '/^\n*$/{$d;N;ba' -e '}' "$new.blurb"

awk -v subject="$subject" -v blurbfile="$new.blurb" '
	/\*\*\* SUBJECT HERE \*\*\*/ {sub(/\*\*\* SUBJECT HERE \*\*\*/, subject)}
	/^\*\*\* BLURB HERE \*\*\*$/ {
		while ((getline line < blurbfile) > 0) print line
		next
	}
	{print}' "$new" > "$new.tmp"
mv "$new.tmp" "$new"
rm -f "$new.blurb"
