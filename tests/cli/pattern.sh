# pattern_fault PATTERN: prints why an expect PATTERN could never fail, and
# nothing for one that can. Sourced by tests/cli/run.sh and tests/rack/lib.sh,
# whose expect helpers take such a pattern for an error of the suite: one
# that matches empty output passes a command that prints nothing; one that
# holds a newline is several patterns to grep, any one of which passes (an
# empty last line among them matches anything); one that is no valid
# extended regex makes grep fail whatever the output.
pattern_fault() {
	local rc
	if [[ $1 == *$'\n'* ]]; then
		echo "the pattern /$1/ holds a newline (grep takes each line for a pattern of its own)"
		return
	fi
	grep -Eq -- "$1" <<<"" 2>/dev/null
	rc=$?
	if [ "$rc" -eq 0 ]; then
		echo "the pattern /$1/ matches empty output, so it cannot fail"
	elif [ "$rc" -ne 1 ]; then
		echo "the pattern /$1/ is not a valid extended regex"
	fi
}
