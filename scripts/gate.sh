# gate.sh: the command line every gate script (scripts/check-*.sh) shares,
# sourced after the script defines check ROOT and self_test:
#
#   scripts/check-NAME.sh [ROOT]     check ROOT (default: this repository)
#   scripts/check-NAME.sh --self-test
#                                    prove the check fails and passes as it
#                                    should
#
# gate_main "$@" never returns: it exits with the check's status.
gate_main() {
	usage="usage: scripts/$(basename "$0") [ROOT] | --self-test"
	case "${1:-}" in
	--self-test)
		self_test
		exit $?
		;;
	--help|-h)
		echo "$usage"
		exit 0
		;;
	-*)
		echo "$usage" >&2
		exit 2
		;;
	esac
	root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
	check "$root"
	exit $?
}
