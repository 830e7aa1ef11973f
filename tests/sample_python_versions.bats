#!/usr/bin/env bats
# Python's own frames on each pyenv CPython 3.10 to 3.13 this machine has:
# the checks sample_python.bats makes on Debian's python3.11.  Against the
# build users run only: the interpreters differ, prof-sample's code does
# not, and it runs under ASan in sample_python.bats.

load helpers
load python_work
bats_require_minimum_version 1.5.0

setup() {
	require_root
	TMP=$(mktemp -d)
}

@test "pyenv's CPython 3.10: the same" {
	p=$(pyenv_python 10) || skip "no pyenv CPython 3.10 under /root/.pyenv/versions"
	shares_checked "$p"
}

@test "pyenv's CPython 3.11: the same" {
	p=$(pyenv_python 11) || skip "no pyenv CPython 3.11 under /root/.pyenv/versions"
	shares_checked "$p"
}

@test "pyenv's CPython 3.12: the same" {
	p=$(pyenv_python 12) || skip "no pyenv CPython 3.12 under /root/.pyenv/versions"
	shares_checked "$p"
}

@test "pyenv's CPython 3.13: the same" {
	p=$(pyenv_python 13) || skip "no pyenv CPython 3.13 under /root/.pyenv/versions"
	shares_checked "$p"
}
