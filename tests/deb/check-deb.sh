#!/usr/bin/env bash
# check-deb.sh - the Debian packages, otp-utils and otp-utils-pg (the
# PostgreSQL store), and the library's libotputils0, libotputils-dev and
# python3-otputils, built, installed, used and purged on this machine,
# which must be left as it was.  As root (CI, `make check-deb`).  Steps:
#
#   1. the source: debian/changelog's version is the GNUmakefile's
#      VERSION, debian/copyright carries LICENSE's text, Build-Depends
#      holds DEPS_BUILD and DEPS_TEST (what `make check` needs in the
#      package build);
#   2. a clean copy of the tree builds with `dpkg-buildpackage -us -uc -b`
#      (nocheck: the suite ran already) into the two .deb files, lintian
#      reports no error and no warning on either, the two together hold
#      what `make install` installs, otp-utils-pg the store's object and
#      schema.sql, and no ELF file of otp-utils links libpq (the object
#      does);
#   3. apt installs both; every tool in /usr/bin answers --version and does
#      one real job; the tools load the store's object for a postgresql://
#      URL; pam_otp.so loads by its bare name through pam_wrapper
#      (a code accepted, a wrong one refused, and the pam-auth-update
#      profile's own lines let a user without a state file through);
#      `man -w` finds every page; the profile is not enabled; in a scratch
#      PAM configuration the profile, once enabled, adds pam_otp.so nullok
#      after the password, and the package's prerm takes it out again;
#      otp-utils-pg purged alone takes its files and leaves the tools
#      working, saying the object cannot be loaded; installed again on
#      its own, it loads;
#      a C program builds with `pkg-config otputils` and runs against the
#      installed library, and /usr/bin/python3 imports otputils and
#      checks a code;
#   4. apt purges them all (and any package they pulled in): no file, no
#      dpkg list, /etc/pam.d and /var/lib/pam as before, the same
#      packages.
#
# OTP_DEB_KEEP=1 keeps the work directory (its path is printed).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PKG=otp-utils
PGPKG=otp-utils-pg
LIBPKGS=(libotputils0 libotputils-dev python3-otputils)
PWRAP_SO=libpam_wrapper.so
fails=0

say() { printf 'check-deb: %s\n' "$*"; }
bad() {
	printf 'check-deb: FAIL: %s\n' "$*" >&2
	fails=$((fails + 1))
}
die() {
	printf 'check-deb: %s\n' "$*" >&2
	exit 2
}
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

[[ $(id -u) == 0 ]] || die "run as root: it installs and purges $PKG"
for p in "$PKG" "$PGPKG" "${LIBPKGS[@]}"; do
	if dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
	    grep -q 'ok installed'; then
		die "$p is installed already; this check would remove it"
	fi
done
for c in dpkg-buildpackage dpkg-parsechangelog lintian apt-get pamtester \
    man objdump ldd; do
	command -v "$c" >/dev/null || die "$c missing (make deps)"
done

W=$(mktemp -d /tmp/check-deb.XXXXXX)
installed=0
newpkgs=()
# aptq: apt-get, quiet and waiting for the lock.
aptq() {
	DEBIAN_FRONTEND=noninteractive apt-get -y -qq \
	    -o DPkg::Lock::Timeout=900 "$@"
}
# purge_new: apt purges those of newpkgs that dpkg still knows (one
# purged already, as otp-utils-pg in step 3, is no longer apt's to find).
purge_new() {
	local p left=()
	for p in "${newpkgs[@]}"; do
		dpkg-query -W -f='${db:Status-Abbrev}\n' "$p" 2>/dev/null |
		    grep -q '^.[^n]' && left+=("$p")
	done
	[[ ${#left[@]} == 0 ]] || aptq purge "${left[@]}"
}
cleanup() {
	if [[ $installed == 1 ]]; then
		say "cleaning up: purging ${newpkgs[*]}"
		purge_new >/dev/null 2>&1 || true
	fi
	if [[ ${OTP_DEB_KEEP:-0} == 1 ]]; then
		say "work directory kept: $W"
	else
		rm -rf "$W"
	fi
}
trap cleanup EXIT

# makevar NAME: a variable of the GNUmakefile, as make sees it.
makevar() {
	# shellcheck disable=SC2016  # $(...) is make's, not the shell's
	printf 'print-var:\n\t@echo $(%s)\n' "$1" |
	    make --no-print-directory -s -C "$ROOT" -f GNUmakefile -f - print-var
}

# --- 1. the source ----------------------------------------------------
version=$(makevar VERSION)
chver=$(dpkg-parsechangelog -l "$ROOT/debian/changelog" -S Version)
[[ $chver == "$version" ]] ||
    bad "debian/changelog says $chver, the GNUmakefile's VERSION $version"

# The licence paragraph of debian/copyright, its " ." lines blank, is
# LICENSE without its copyright line.
diff <(sed -n '/^Permission/,$p' "$ROOT/LICENSE") \
    <(awk '/^License: ISC$/ { n++; next } n == 2 && /^ / {
	sub(/^ /, ""); if ($0 == ".") $0 = ""; print }' \
    "$ROOT/debian/copyright") >/dev/null ||
    bad "debian/copyright's ISC text differs from LICENSE"

# gcc and make come with build-essential, which Build-Depends assumes.
bdeps=$(sed -n '/^Build-Depends:/,/^[A-Z]/p' "$ROOT/debian/control" |
    sed '1s/^Build-Depends://; /^[A-Z#]/d; s/<[^>]*>//g; s/([^)]*)//g' |
    tr -s ', \t' '\n' | sed '/^$/d')
for p in $(makevar DEPS_BUILD) $(makevar DEPS_TEST); do
	case $p in gcc | make) continue ;; esac
	grep -qx -- "$p" <<<"$bdeps" ||
	    bad "$p is in the GNUmakefile's DEPS but not in Build-Depends"
done

# --- 2. build and lintian -----------------------------------------------
src=$W/src/$PKG
mkdir -p "$src"
if git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1; then
	# The tracked and new files, as a clone would have them, without
	# build/ or other ignored output.
	git -C "$ROOT" ls-files -z -co --exclude-standard |
	    (cd "$ROOT" && xargs -0 tar -cf - --no-recursion \
	    --ignore-failed-read -- 2>/dev/null) |
	    tar -xf - -C "$src"
else
	tar -C "$ROOT" --exclude=./build -cf - . | tar -xf - -C "$src"
fi
say "building $PKG $chver (nocheck) in $src"
t0=$(now)
(cd "$src" && DEB_BUILD_OPTIONS=nocheck dpkg-buildpackage -us -uc -b) \
    >"$W/build.log" 2>&1 || {
	tail -n 40 "$W/build.log" >&2
	die "dpkg-buildpackage failed (log above)"
}
say "packages built in $(since "$t0") s"
arch=$(dpkg --print-architecture)
deb=$W/src/${PKG}_${chver}_$arch.deb
pgdeb=$W/src/${PGPKG}_${chver}_$arch.deb
libdebs=()
for p in "${LIBPKGS[@]}"; do
	libdebs+=("$W/src/${p}_${chver}_$arch.deb")
done
for d in "$deb" "$pgdeb" "${libdebs[@]}"; do
	[[ -f $d ]] || die "no $d"
done
# These and their -dbgsym packages, nothing else.
built=$(find "$W/src" -maxdepth 1 -name '*.deb' ! -name '*-dbgsym_*' \
    -printf '%f\n' | sort)
[[ $built == "$(printf '%s\n' "${deb##*/}" "${pgdeb##*/}" \
    "${libdebs[@]##*/}" | sort)" ]] ||
    bad "the build made other packages: ${built//$'\n'/ }"
# The hardening flags reached the compiler and the linker.
for flag in -fstack-protector-strong -D_FORTIFY_SOURCE=2 -Wl,-z,relro \
    -Wl,-z,now; do
	grep -q -- "$flag" "$W/build.log" ||
	    bad "dpkg-buildflags' $flag is not on the build's lines"
done

if ! lintian --fail-on error,warning "$deb" "$pgdeb" "${libdebs[@]}" \
    >"$W/lintian.log" 2>&1
then
	cat "$W/lintian.log" >&2
	bad "lintian reports errors or warnings"
fi

# The two .deb files hold exactly what `make install` installs with the
# same places (pages compressed), the docs and the pam-auth-update
# profile; otp-utils-pg the store's object and schema.sql.
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
make --no-print-directory -s -C "$src" install DESTDIR="$W/destdir" \
    STATIC_DEPS=0 PREFIX=/usr PAMDIR="/usr/lib/$multiarch/security" \
    APILIBDIR="/usr/lib/$multiarch" \
    ZSHCOMPDIR=/usr/share/zsh/vendor-completions >/dev/null
# /usr/share/doc is each package's own (its copyright, changelog and the
# examples, checked below), on both sides.
(cd "$W/destdir" && find . ! -type d | sed 's/^\.//' |
    grep -v '^/usr/share/doc/' | sort) >"$W/make-install.list"
dpkg-deb -c "$deb" >"$W/deb.contents"
dpkg-deb -c "$pgdeb" >"$W/pgdeb.contents"
: >"$W/libdeb.contents"
for d in "${libdebs[@]}"; do
	dpkg-deb -c "$d" >>"$W/libdeb.contents"
done
# files CONTENTS: the files of a `dpkg-deb -c` listing, as installed.
files() { awk '$1 !~ /^d/ { print $6 }' "$1" | sed 's/^\.//'; }
{ files "$W/deb.contents"; files "$W/pgdeb.contents"
    files "$W/libdeb.contents"; } |
    grep -v -e '^/usr/share/doc/' -e '^/usr/share/pam-configs/' |
    sed 's|^\(/usr/share/man/.*\)\.gz$|\1|' | sort >"$W/deb.list"
diff "$W/make-install.list" "$W/deb.list" >&2 ||
    bad "the .deb files' files (+) differ from make install's (-)"
# One package for each file: no file in both.
dups=$(sort <(files "$W/deb.contents") <(files "$W/pgdeb.contents") \
    <(files "$W/libdeb.contents") | uniq -d)
[[ -z $dups ]] || bad "in both packages: $dups"
PGSO=/usr/lib/otp-utils/store-pg.so
PGSQL=/usr/share/otp-utils/schema.sql
diff <(printf '%s\n' "$PGSO" "$PGSQL") \
    <(files "$W/pgdeb.contents" | grep -v "^/usr/share/doc/$PGPKG/") >&2 ||
    bad "$PGPKG's files (+) are not its object and schema (-)"
pgdepends=$(dpkg-deb -f "$pgdeb" Depends)
[[ ", $pgdepends," == *", $PKG (= $chver),"* ]] ||
    bad "$PGPKG does not depend on $PKG (= $chver): $pgdepends"
[[ $pgdepends =~ (^|, )libpq5( |,|$) ]] ||
    bad "$PGPKG does not depend on libpq5: $pgdepends"
grep -q "/usr/share/pam-configs/$PKG\$" "$W/deb.contents" ||
    bad "no pam-auth-update profile in the .deb"
for f in freeradius/radiusd.conf apache/otp.conf apache/pam.d/apache-otp \
    nginx/otp.conf nginx/pam.d/nginx-otp openvpn/server.conf \
    console/pam.d/otp-console; do
	grep -q "/usr/share/doc/$PKG/examples/$f\$" "$W/deb.contents" ||
	    bad "no examples/$f in the .deb"
done

# libpq is otp-utils-pg's alone: no ELF file of otp-utils needs it, neither
# itself (objdump -p's NEEDED) nor through another library (ldd); the
# store's object does.
# needs FILE: the libraries FILE needs, directly and through others.
needs() {
	objdump -p "$1" | awk '$1 == "NEEDED" { print $2 }'
	ldd "$1" 2>/dev/null | awk '{ print $1 }'
}
is_elf() { [[ $(head -c 4 "$1" | od -An -tx1 | tr -d ' ') == 7f454c46 ]]; }
mkdir -p "$W/x/$PKG" "$W/x/$PGPKG"
dpkg-deb -x "$deb" "$W/x/$PKG"
dpkg-deb -x "$pgdeb" "$W/x/$PGPKG"
nelf=0
for d in "${libdebs[@]}"; do
	dpkg-deb -x "$d" "$W/x/$PKG"
done
while IFS= read -r -d '' f; do
	is_elf "$f" || continue
	nelf=$((nelf + 1))
	lib=$(LD_LIBRARY_PATH="$W/x/$PKG/usr/lib/$multiarch" needs "$f" |
	    grep -m 1 libpq) || lib=
	[[ -z $lib ]] || bad "${f#"$W/x/$PKG"} needs $lib"
done < <(find "$W/x/$PKG" -type f -print0)
[[ $nelf -ge 6 ]] || bad "only $nelf ELF files in $PKG"
pgso=$W/x/$PGPKG$PGSO
if [[ -f $pgso ]] && is_elf "$pgso"; then
	objdump -p "$pgso" | grep -q -P '^\s*NEEDED\s+libpq\.so\.' ||
	    bad "$PGSO does not link libpq"
	! ldd "$pgso" | grep -q 'not found' || {
		ldd "$pgso" >&2
		bad "$PGSO needs a library that is not found"
	}
else
	bad "no ELF $PGSO in $PGPKG"
fi
say "$nelf ELF files in $PKG and the library's packages, none needs" \
    "libpq; $PGSO does"

# --- 3. install and use ---------------------------------------------------
snapshot() {
	# What pam-auth-update writes; other services' files are not ours.
	(cd / && find etc/pam.d -name 'common-*' -type f -exec md5sum {} + &&
	    find var/lib/pam -type f -exec md5sum {} +) | sort
	debconf-show libpam-runtime | sort
}
pkglist() {
	dpkg-query -W -f='${db:Status-Abbrev} ${binary:Package}\n' |
	    awk '$1 ~ /^.i/ { print $2 }' | sort
}
snapshot >"$W/pam.before"
pkglist >"$W/pkgs.before"
# The packages' directories that do not exist yet must go with them.
# newdirs CONTENTS: those of a `dpkg-deb -c` listing.
newdirs() {
	awk '$1 ~ /^d/ { print $6 }' "$1" | sed 's/^\.//; s|/$||' |
	    while read -r d; do
		[[ -z $d || -e $d ]] || printf '%s\n' "$d"
	done
}
newdirs "$W/deb.contents" >"$W/newdirs.list"
newdirs "$W/pgdeb.contents" >"$W/pgnewdirs.list"
cat "$W/pgnewdirs.list" >>"$W/newdirs.list"
newdirs "$W/libdeb.contents" | sort -u >"$W/libnewdirs.list"
cat "$W/libnewdirs.list" >>"$W/newdirs.list"

t0=$(now)
aptq install --no-install-recommends "$deb" "$pgdeb" "${libdebs[@]}" \
    >"$W/install.log" 2>&1 || {
	cat "$W/install.log" >&2
	die "apt-get install $deb $pgdeb ${libdebs[*]} failed"
}
installed=1
pkglist >"$W/pkgs.after"
mapfile -t newpkgs < <(comm -13 "$W/pkgs.before" "$W/pkgs.after" |
    sed 's/:.*//')
say "installed in $(since "$t0") s: ${newpkgs[*]}"
dpkg -L "$PKG" | sort >"$W/files.list"
dpkg -L "$PGPKG" | sort >"$W/pgfiles.list"
for p in "${LIBPKGS[@]}"; do
	dpkg -L "$p"
done | sort -u >"$W/libfiles.list"

# Default: no, so installing changed no PAM stack (pam-auth-update notes
# the profile as seen in /var/lib/pam/seen, until the purge).
if ! diff <(grep ' etc/' "$W/pam.before") <(snapshot | grep ' etc/') >&2
then
	bad "installing changed /etc/pam.d"
fi

T=$W/run
mkdir -p "$T"
HEX=3132333435363738393031323334353637383930   # RFC 4226's key
B32=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ           # the same in Base32
# job TOOL: one real job of TOOL, from its installed path.
job() {
	local t=/usr/bin/$1 out
	case $1 in
	otp-gen)
		out=$("$t" --totp -N '2009-02-13 23:31:30 UTC' "$HEX") &&
		    [[ $out == 005924 ]] ;;
	otp-verify)
		"$t" "$HEX" 755224 >/dev/null &&
		    ! "$t" -q "$HEX" 000000 ;;
	b32)
		out=$(printf '%s\n' "$HEX" | "$t" --hex -n) &&
		    [[ $out == GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ ]] ;;
	otp-uri)
		out=$("$t" -i Example -A alice "$B32") &&
		    out=$("$t" --get=secret "$out") &&
		    [[ $out == "$B32" ]] ;;
	otp-keygen)
		out=$("$t" --scratch=1 --scratch-out="$T/scratch" \
		    --state="$T/state" --totp) &&
		    [[ $(head -n 1 "$T/state") == "$out" ]] &&
		    [[ $(stat -c %a "$T/state") == 400 ]] &&
		    printf '%s\n' "$out" >"$T/key" ;;
	otp-store)
		rm -f "$T/store.from" "$T/store.to" "$T/store.codes" &&
		    /usr/bin/otp-keygen --scratch=2 --scratch-out="$T/store.codes" \
		    --state="$T/store.from" --totp >/dev/null &&
		    "$t" copy "ga:$T/store.from" "ga:$T/store.to" &&
		    cmp -s "$T/store.from" "$T/store.to" &&
		    [[ $(stat -c %a "$T/store.to") == 400 ]] ;;
	*)
		bad "no job for /usr/bin/$1 in tests/deb/check-deb.sh"
		return 0 ;;
	esac || bad "$1: its job failed"
}
ntools=0
while read -r f; do
	[[ $f == /usr/bin/* && -f $f ]] || continue
	t=${f##*/}
	ntools=$((ntools + 1))
	out=$("$f" --version) || out="(exit $?)"
	[[ $out == "$t (otp-utils) $version" ]] ||
	    bad "$t --version says '$out'"
	job "$t"
	[[ -f /usr/share/bash-completion/completions/$t &&
	    -f /usr/share/zsh/vendor-completions/_$t &&
	    -f /usr/share/fish/vendor_completions.d/$t.fish ]] ||
	    bad "$t: a completion is missing"
	man -w "$t" >/dev/null 2>&1 || bad "man -w $t finds no page"
done <"$W/files.list"
cat "$W/libfiles.list" >>"$W/files.list"
[[ $ntools -ge 6 ]] || bad "only $ntools tools in /usr/bin"

# A postgresql:// store: the tools load the store's object from its
# compiled-in place (OTP_STORE_MODULE, which would override it, unset).
# Nothing listens on port 1 and the store key does not exist, so the run
# fails (exit 2), but past the loading: on the key or the connection.
pgrun() {
	local rc=0
	env -u OTP_STORE_MODULE /usr/bin/otp-verify \
	    --store=postgresql://nobody@127.0.0.1:1/x --user=a \
	    --store-key=/nonexistent 123456 >"$T/pg.out" 2>&1 || rc=$?
	pgrc=$rc
}
pg_loads() {	# pg_loads WHEN
	pgrun
	if [[ $pgrc != 2 ]] || grep -q 'cannot be loaded' "$T/pg.out" ||
	    ! grep -q -i -e 'store key' -e 'connect' "$T/pg.out"; then
		cat "$T/pg.out" >&2
		bad "$1: a postgresql:// store: exit $pgrc, not the key's" \
		    "or the connection's error past the object's loading"
	fi
}
pg_absent() {	# pg_absent WHEN
	pgrun
	if [[ $pgrc != 2 ]] ||
	    ! grep -q "cannot be loaded: $PGSO: " "$T/pg.out"; then
		cat "$T/pg.out" >&2
		bad "$1: a postgresql:// store: exit $pgrc, not" \
		    "'$PGSO ... cannot be loaded'"
	fi
}
pg_loads "with $PGPKG"

# Every page, by section and name.
npages=0
while read -r f; do
	[[ $f =~ ^/usr/share/man/man([0-9])/(.*)\.[0-9]\.gz$ ]] || continue
	npages=$((npages + 1))
	p=$(man -w "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}" 2>/dev/null) ||
	    p=
	[[ $p == "$f" ]] ||
	    bad "man -w ${BASH_REMATCH[1]} ${BASH_REMATCH[2]}: '${p:-}'"
done <"$W/files.list"
say "$ntools tools, $npages pages"

# The library as a program uses it: a C program built with pkg-config
# against the installed header and library (no path of the build), and
# Debian's python3 importing the module and checking a code.
cat >"$T/app.c" <<'EOC'
#include <stdio.h>
#include <otputils.h>

int
main(void)
{
	struct otp_token *t;
	char code[16];

	if (otp_token_parse(&t, "otpauth://totp/x?secret="
	    "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&digits=8", NULL) != 0)
		return 2;
	otp_token_code(t, 59, code, sizeof(code));
	printf("%s %s %d\n", otp_version(), code,
	    otp_token_verify(t, code, 59, 0, -1, NULL));
	otp_token_free(t);
	return 0;
}
EOC
# shellcheck disable=SC2046  # pkg-config's flags are words
if cc -o "$T/app" "$T/app.c" $(pkg-config --cflags --libs otputils) 2>&1 &&
    out=$("$T/app") && [[ $out == "$version 94287082 1" ]]; then
	say "a C program with pkg-config otputils: $out"
else
	bad "a C program against libotputils: '${out:-}'"
fi
out=$(cd / && /usr/bin/python3 -c 'import otputils
t = otputils.TOTP("GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ", digits=8)
print(otputils.__version__, t.at(59), t.verify("94287082", 59))') || out=
[[ $out == "$version 94287082 True" ]] ||
    bad "python3 -c 'import otputils': '$out'"

# The module by its bare name, through pam_wrapper: as libpam finds it.
so=/usr/lib/$multiarch/security/pam_otp.so
grep -qx "$so" "$W/files.list" || bad "$so is not in the package"
mkdir -p "$T/svc"
pam() {	# pam SERVICE USER INPUT
	LD_PRELOAD=$PWRAP_SO PAM_WRAPPER=1 PAM_WRAPPER_SERVICE_DIR="$T/svc" \
	    pamtester "$1" "$2" authenticate <<<"$3" >"$T/pam.out" 2>&1
}
if [[ -f $T/key ]]; then
	printf 'auth required pam_otp.so secret=%s\n' "$T/state" \
	    >"$T/svc/otp"
	code=$(/usr/bin/otp-gen --totp -b - <"$T/key") || code=000000
	pam otp root "$code" || {
		cat "$T/pam.out" >&2
		bad "pam_otp.so by bare name: the current code was refused"
	}
	code=$(printf '%06d' $(((10#$code + 500000) % 1000000)))
	if pam otp root "$code"; then
		bad "pam_otp.so by bare name: a wrong code was accepted"
	fi
fi
# The profile's Auth lines after what its Auth-Type (Additional) follows
# in common-auth: a user without a state file (nobody, whose home does
# not exist) goes through, thanks to nullok.
profile=/usr/share/pam-configs/$PKG
grep -qx 'Default: no' "$profile" || bad "the profile is enabled by default"
grep -qx 'Auth-Type: Additional' "$profile" ||
    bad "the profile is not an additional auth module"
{
	echo 'auth required pam_permit.so'
	sed -n '/^Auth:/,/^[A-Z]/{/^[ \t]/s/^[ \t]*/auth /p}' "$profile"
} >"$T/svc/profile"
grep -q 'pam_otp.so nullok' "$T/svc/profile" ||
    bad "the profile's Auth lines do not use pam_otp.so nullok"
pam profile nobody "" || {
	cat "$T/pam.out" >&2
	bad "the profile locks out a user without a state file"
}

# The profile enabled, then the package removed, in a scratch PAM
# configuration: pam-auth-update --root on a fresh copy of the profiles,
# with a debconf database of its own; the package's postinst and prerm
# run with pam-auth-update pointed there.  The machine's are not touched.
S=$T/pamroot
mkdir -p "$S/etc/pam.d" "$S/var/lib/pam" "$S/usr/share/pam-configs" \
    "$T/shim" "$T/ctl"
cp /usr/share/pam-configs/* "$S/usr/share/pam-configs/"
printf '%s\n' 'Config: configdb' 'Templates: templatedb' '' \
    'Name: configdb' 'Driver: File' "Filename: $T/debconf-config.dat" '' \
    'Name: templatedb' 'Driver: File' 'Mode: 644' \
    "Filename: $T/debconf-templates.dat" >"$T/debconf.conf"
printf '#!/bin/sh\nexec /usr/sbin/pam-auth-update --root "%s" "$@"\n' "$S" \
    >"$T/shim/pam-auth-update"
chmod +x "$T/shim/pam-auth-update"
dpkg-deb -e "$deb" "$T/ctl"
pau() {	# pau COMMAND...: with the scratch root and debconf database
	env PATH="$T/shim:$PATH" DEBCONF_SYSTEMRC="$T/debconf.conf" \
	    DEBIAN_FRONTEND=noninteractive "$@" >>"$T/pau.log" 2>&1
}
common() { cat "$S"/etc/pam.d/common-*; }
pau pam-auth-update --force || bad "pam-auth-update --root failed"
common >"$T/common.pristine"
pau sh "$T/ctl/postinst" configure || bad "the postinst failed"
common | diff "$T/common.pristine" - >&2 ||
    bad "the postinst enabled the profile"
pau pam-auth-update --enable "$PKG" || bad "pam-auth-update --enable failed"
a=$S/etc/pam.d/common-auth
line_otp=$(grep -n -P '^auth\trequired\tpam_otp\.so nullok$' "$a" |
    cut -d: -f1) || true
line_permit=$(grep -n 'pam_permit\.so' "$a" | cut -d: -f1) || true
if [[ -z $line_otp || -z $line_permit || $line_otp -le $line_permit ]]; then
	cat "$a" >&2
	bad "enabled, the profile is not 'auth required pam_otp.so nullok'" \
	    "after the password modules"
fi
pau sh "$T/ctl/prerm" remove || bad "the prerm failed"
common | diff "$T/common.pristine" - >&2 ||
    bad "after the prerm, pam_otp.so is still in common-*"

# otp-utils-pg alone: purged, it takes its files and leaves the tools
# working without the store; installed again on its own, it loads.
# gone PKG FILES-LIST NEWDIRS-LIST: PKG is purged without a trace.
gone() {
	if dpkg -L "$1" >/dev/null 2>&1; then
		bad "dpkg -L $1 still lists files"
	fi
	if dpkg-query -W -f='${Status}\n' "$1" 2>/dev/null |
	    grep -qv 'not-installed'; then
		bad "dpkg still knows $1: $(dpkg-query -W -f='${Status}' "$1")"
	fi
	while read -r f; do
		[[ -d $f && ! -L $f ]] && continue   # shared directories stay
		[[ ! -e $f && ! -L $f ]] || bad "left behind: $f"
	done <"$2"
	while read -r d; do
		[[ ! -e $d ]] || bad "left behind: directory $d"
	done <"$3"
	[[ ! -e /usr/share/doc/$1 ]] || bad "left behind: /usr/share/doc/$1"
}
aptq purge "$PGPKG" >"$W/pgpurge.log" 2>&1 || {
	cat "$W/pgpurge.log" >&2
	die "apt-get purge $PGPKG failed"
}
gone "$PGPKG" "$W/pgfiles.list" "$W/pgnewdirs.list"
dpkg-query -W -f='${Status}\n' "$PKG" 2>/dev/null | grep -q 'ok installed' ||
    bad "purging $PGPKG removed $PKG"
job otp-verify
job otp-store
pg_absent "without $PGPKG"
aptq install --no-install-recommends "$pgdeb" >"$W/pginstall.log" 2>&1 ||
{
	cat "$W/pginstall.log" >&2
	die "apt-get install $pgdeb (with $PKG installed) failed"
}
pg_loads "$PGPKG installed after $PKG"
say "$PGPKG purged alone and installed again"

# --- 4. purge -------------------------------------------------------------
t0=$(now)
purge_new >"$W/purge.log" 2>&1 || {
	cat "$W/purge.log" >&2
	die "apt-get purge failed"
}
installed=0
say "purged in $(since "$t0") s"
gone "$PKG" "$W/files.list" "$W/newdirs.list"
gone "$PGPKG" "$W/pgfiles.list" "$W/pgnewdirs.list"
for p in "${LIBPKGS[@]}"; do
	gone "$p" "$W/libfiles.list" "$W/libnewdirs.list"
done
diff "$W/pam.before" <(snapshot) >&2 ||
    bad "/etc/pam.d or /var/lib/pam differ from before"
diff "$W/pkgs.before" <(pkglist) >&2 ||
    bad "the installed packages differ from before"

if [[ $fails -gt 0 ]]; then
	say "$fails failures"
	exit 1
fi
say "ok: all five built, lintian clean, installed, used, purged without" \
    "a trace"
