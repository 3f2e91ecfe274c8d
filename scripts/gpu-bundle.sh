# shellcheck shell=bash
# scripts/gpu-selftest --bundle DIR (sourced by it): a folder that runs the
# self-test on a machine with nothing of fabcheck's libraries.

# glibc's own libraries: on every glibc system, never bundled (a bundled
# libc would have to come with its loader and match it).
GLIBC_RE='^(ld-linux[-a-z0-9_.]*|libc|libm|libmvec|libdl|libpthread|librt|libresolv|libutil|libanl|libnsl|libBrokenLocale|libthread_db)\.so'
# Libraries fabcheck dlopens that belong to the GPU machine, never bundled:
# the CUDA driver (it must match the kernel module) and NCCL (the self-test
# checks the image's own; the runner finds it there).
MACHINE_LIBS=' libcuda.so.1 libnccl.so.2 '

# bundle_fail MESSAGE: the bundle is not made; what to do.
bundle_fail() { echo "gpu-selftest --bundle: $*" >&2; exit 1; }

# deps FILE: "soname path" of each library the loader resolves for FILE
# (ldd: ld.so --list), glibc's left out; a library it cannot find fails.
deps() {
	local out
	out=$(ldd "$1" 2>&1) || bundle_fail "ldd $1: $out"
	if grep -q 'not found' <<<"$out"; then
		bundle_fail "$1 needs $(grep 'not found' <<<"$out" | awk '{print $1}' | tr '\n' ' ')which the loader cannot find here: install them, then bundle again"
	fi
	awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' <<<"$out" | grep -Ev "$GLIBC_RE" || true
}

# dlopened FILE: the library names FILE opens at run time: the sonames among
# its strings that are not among its DT_NEEDED entries. A string may follow
# a constant whose last byte is printable (strings then prints, say,
# "@libnccl.so.2"): one such byte before the name is dropped; a name after
# a space or a slash is text or a path, not a name dlopen is given.
dlopened() {
	local needed
	needed=$(readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
	strings -a "$1" | grep -oE '(^|[^A-Za-z0-9_. /-])lib[A-Za-z0-9_+-]+\.so\.[0-9]+$' |
		sed -E 's/^[^l]//' | sort -u | grep -vxF "$needed"
}

# resolve SONAME LIBC: where the loader's cache puts SONAME for the ABI of
# the libc at LIBC ("(libc6,x86-64)"), empty if nowhere.
resolve() {
	ldconfig -p | awk -v n="$1" -v p="$2" '
		{ t = $2; sub(/[,)]+$/, "", t) }
		$1 == "libc.so.6" && $NF == p { want = t }
		$1 == n && !(t in cand) { cand[t] = $NF }
		END { if (want in cand) print cand[want] }'
}

make_bundle() {
	local dir=$1 fc=$2 src libc name path lib g need
	src=$(cd "$(dirname "$SELF")/.." && pwd)
	[ -x "$fc" ] && is_elf "$fc" || bundle_fail "'$fc' is not a fabcheck binary: make fabcheck, or give --fabcheck PATH"
	new_dir "$dir" --bundle
	mkdir -p "$dir/bin" "$dir/lib" "$dir/data" || bundle_fail "cannot write $dir"
	cp "$fc" "$dir/bin/fabcheck" && cp "$SELF" "$dir/gpu-selftest" &&
		cp "$(dirname "$SELF")"/gpu-steps.sh "$(dirname "$SELF")"/gpu-bundle.sh "$dir/" &&
		cp "$src/tests/topo/mksysfs.sh" "$dir/data/" &&
		cp "$(ls "$src"/tests/data/nccl/logs/*.log | head -1)" "$dir/data/" ||
		bundle_fail "cannot copy the self-test's files into $dir"
	{
		echo "# written by scripts/gpu-selftest --bundle on $(hostname) at $(date -u +%FT%TZ)"
		echo "fabcheck $(cd "$src" && git describe --always --dirty 2>/dev/null)"
	} >"$dir/MANIFEST"
	libc=$(ldd "$fc" | awk '$1 == "libc.so.6" {print $3}')
	# The binary's libraries, then each dlopened one that is here and not the
	# GPU machine's, with its own.
	deps "$fc" >"$dir/libs.tmp" || exit 1
	for name in $(dlopened "$fc"); do
		if [[ $MACHINE_LIBS == *" $name "* ]]; then
			echo "dlopen $name: the GPU machine's own, not bundled" >>"$dir/MANIFEST"
			continue
		fi
		path=$(resolve "$name" "$libc")
		if [ -z "$path" ]; then
			echo "dlopen $name: not on this host, not bundled (fabcheck goes on without it)" >>"$dir/MANIFEST"
			continue
		fi
		echo "$name $path" >>"$dir/libs.tmp"
		deps "$path" >>"$dir/libs.tmp" || exit 1
		echo "dlopen $name: bundled from $path" >>"$dir/MANIFEST"
	done
	sort -u "$dir/libs.tmp" | while read -r lib path; do
		cp -L "$path" "$dir/lib/$lib" || bundle_fail "cannot copy $path"
		echo "lib $lib $path" >>"$dir/MANIFEST"
	done
	rm -f "$dir/libs.tmp"
	# The newest glibc symbol version any bundled file asks for: the runner
	# refuses a machine with an older glibc, with that said.
	need=$(for g in "$dir/bin/fabcheck" "$dir"/lib/*; do
		objdump -T "$g" 2>/dev/null | grep -o 'GLIBC_[0-9.]*'
	done | sed 's/GLIBC_//' | sort -Vu | tail -1)
	echo "glibc $need" >>"$dir/MANIFEST"
	cat >"$dir/run" <<'EOF'
#!/bin/sh
# The bundle's runner (written by scripts/gpu-selftest --bundle): the
# self-test with this folder's fabcheck, every run of which gets
# LD_LIBRARY_PATH=<this folder>/lib alone; the machine's own tools
# (nvidia-smi, python3, nvcc) keep the caller's environment.
#   ./run --out DIR [--nccl PATH] [--max-copy SIZE]   (or OUT=DIR ./run)
B=$(cd "$(dirname "$0")" && pwd) || exit 2
PATH=${PATH:-/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin}
export PATH
exec bash "$B/gpu-selftest" --in-bundle "$B" "$@"
EOF
	chmod 755 "$dir/run" "$dir/gpu-selftest"
	echo "bundle: $dir ($(ls "$dir/lib" | wc -l) libraries, glibc $need or newer); on the GPU machine: $dir/run --out DIR"
}
