#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Regenerate deploy/kernel/evidence/*.txt from the objects build.sh saved in
# $KWORK/artifacts/{stock,patched,arm64-stock,arm64-patched}. The disassembly
# is of the real compiled objects (gcc 12, the configs in this directory); it
# shows code shape, not speed.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ART=${KWORK:-/work/kbuild}/artifacts
EV=$HERE/evidence
mkdir -p "$EV"

# Print one function's disassembly (with relocations, so calls are named).
fn() { # objdump obj func
	"$1" -dr --no-show-raw-insn "$2" |
		awk -v f="<$3>:" '$2 == f { p = 1 } p && /^$/ { exit } p'
}

{
	echo "# trie_lookup_elem(), x86_64, kernel/bpf/lpm_trie.o (gcc $(gcc -dumpversion), CONFIG_RETHUNK=y)"
	for w in stock patched; do
		o=$ART/$w/kernel/bpf/lpm_trie.o
		echo
		echo "## $w: calls made from trie_lookup_elem:"
		fn objdump "$o" trie_lookup_elem | grep -E "call|R_X86_64_PLT32" | sed 's/^/  /' || true
		echo "## $w: instructions in trie_lookup_elem: $(fn objdump "$o" trie_lookup_elem | grep -cE '^ +[0-9a-f]+:')"
		echo "## $w: function symbols in lpm_trie.o named *longest_prefix_match*:"
		nm "$o" | grep longest_prefix_match | sed 's/^/  /' || true
	done
	for w in stock patched; do
		echo
		echo "## $w: full disassembly of trie_lookup_elem"
		fn objdump "$ART/$w/kernel/bpf/lpm_trie.o" trie_lookup_elem
	done
} > "$EV/lpm_trie_lookup-x86_64.txt"

{
	echo "# poke_int3_handler(), x86_64, arch/x86/kernel/alternative.o"
	for w in stock patched; do
		o=$ART/$w/arch/x86/kernel/alternative.o
		echo
		echo "## $w: locked instructions in poke_int3_handler: $(fn objdump "$o" poke_int3_handler | grep -c 'lock ' || true)"
		fn objdump "$o" poke_int3_handler | grep -E "lock |%gs:|bp_desc|bp_refs" | sed 's/^/  /' || true
	done
	for w in stock patched; do
		echo
		echo "## $w: full disassembly of poke_int3_handler"
		fn objdump "$ART/$w/arch/x86/kernel/alternative.o" poke_int3_handler
	done
} > "$EV/poke_int3_handler-x86_64.txt"

if [ -d "$ART/arm64-stock" ]; then
	D=aarch64-linux-gnu-objdump
	{
		echo "# recursion check, arm64 (defconfig + arm64.fragment, aarch64-linux-gnu-gcc)"
		echo "# arm64 per-CPU RMW ops are LL/SC in .text, patched at boot to LSE atomics"
		echo "# (.altinstr_replacement) on CPUs that have them."
		for f in __bpf_prog_enter_recur __bpf_prog_exit_recur; do
			for w in stock patched; do
				o=$ART/arm64-$w/kernel/bpf/trampoline.o
				echo
				echo "## $w $f: exclusive/atomic vs plain byte accesses"
				fn $D "$o" "$f" | grep -E "ldxr|stxr|ldadd|stadd|ldrb|strb|preempt|alt" | sed 's/^/  /' || true
			done
		done
		for w in stock patched; do
			echo
			echo "## $w: LSE atomics in trampoline.o .altinstr_replacement: $($D -d -j .altinstr_replacement "$ART/arm64-$w/kernel/bpf/trampoline.o" 2>/dev/null | grep -cE 'ldadd|stadd' || true)"
		done
		for w in stock patched; do
			echo
			echo "## $w: full disassembly of __bpf_prog_enter_recur"
			fn $D "$ART/arm64-$w/kernel/bpf/trampoline.o" __bpf_prog_enter_recur
		done
	} > "$EV/recursion-arm64.txt"

	{
		echo "# arm64 JIT: encoding check for the inlined bpf_get_smp_processor_id()"
		echo "# The JIT emits A64_MRS_SP_EL0(x10) then A64_LDR32I(w7, x10, offsetof(thread_info, cpu))."
		echo "# Assembler reference for the MRS word (x10 = JIT tmp reg):"
		tmp=$(mktemp -d)
		printf 'mrs x10, sp_el0\n' > "$tmp/a.s"
		aarch64-linux-gnu-as -o "$tmp/a.o" "$tmp/a.s"
		$D -d "$tmp/a.o" | grep -E '^ +[0-9a-f]+:'
		echo "# Kernel macro: aarch64_insn_get_mrs_value() | (3-2)<<19 | 4<<12 | 1<<8 | 10 = 0x$(printf '%x' $((0xd5300000 | 1 << 19 | 4 << 12 | 1 << 8 | 10)))"
		echo "# The LDR word comes from the JIT's existing A64_LDR32I() generator."
		rm -rf "$tmp"
		echo "# The JITed image itself was not dumped: no arm64 kernel was booted here."
	} > "$EV/jit_cpu_id-arm64.txt"
fi
ls -la "$EV"
