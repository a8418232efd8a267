# bash completion for pprobe: commands, each command's options (from
# 'pprobe CMD --list-opts', the option table itself) and, after -e/--event,
# the events 'pprobe list' names. Installed as
# share/bash-completion/completions/pprobe; or: source completions/pprobe.bash
_pprobe_commands()
{
	"$1" --help 2>/dev/null | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { on = 0 }'
}

_pprobe()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
	local prog=${COMP_WORDS[0]} cmd= i
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		-*) ;;
		*) cmd=${COMP_WORDS[i]}; break ;;
		esac
	done
	if [[ -z $cmd ]]; then
		COMPREPLY=($(compgen -W "$(_pprobe_commands "$prog") help --help --version" -- "$cur"))
		return
	fi
	if [[ $cmd == help ]]; then
		COMPREPLY=($(compgen -W "$(_pprobe_commands "$prog")" -- "$cur"))
		return
	fi
	case $prev in
	-e | --event)
		local IFS=$'\n' ev
		# "  cpu-clock   [Software event]", "  sched:sched_switch   [Tracepoint event]"
		ev=$("$prog" list 2>/dev/null | awk '/^  [^ ]/ { print $1 }')
		COMPREPLY=($(compgen -W "$ev" -- "$cur"))
		return ;;
	-o | --output | -i | --input | -x | --exec)
		COMPREPLY=($(compgen -f -- "$cur"))
		return ;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$("$prog" "$cmd" --list-opts 2>/dev/null | tr ' ' '\n' | grep '^-')" -- "$cur"))
		return
	fi
	COMPREPLY=($(compgen -f -- "$cur"))
}
complete -F _pprobe pprobe
