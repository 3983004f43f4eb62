#!/usr/bin/env bash
# installer.sh - a tiny, fake interactive installer for clai's first example.
#
# It asks the questions real installers ask (an install directory with a default, a
# numbered component menu, a [Y/n] question, a confirmation, a licence), prints a
# summary and exits 0. It installs nothing and writes no files: it is safe to run
# anywhere, and fast (the only pauses are 0.05s "progress" sleeps).
#
# Run it by hand to see the prompts:
#
#   bash examples/installer.sh
#
# or let clai answer them:
#
#   clai run examples/installer.yaml
#
# Exit codes: 0 installed, 1 cancelled by the user (answered "N" or "no").
set -euo pipefail

product="demo-tool"
version="1.4.2"
default_dir="/opt/${product}"

echo "${product} ${version} installer"
echo

# 1. Install directory, with a default taken when the answer is empty.
read -r -p "Install directory [${default_dir}]: " dir
dir="${dir:-$default_dir}"

# 2. Component menu, answered by number; anything else asks again.
echo
echo "Components:"
echo "  1) minimal  (binary only)"
echo "  2) standard (binary and man pages)"
echo "  3) full     (standard, examples and docs)"
while :; do
	read -r -p "Select components [1-3]: " choice
	case "$choice" in
	1) components="binary"; break ;;
	2) components="binary man-pages"; break ;;
	3) components="binary man-pages examples docs"; break ;;
	*) echo "Please enter 1, 2 or 3." ;;
	esac
done

# 3. A yes/no question whose default (an empty answer, just Enter) is Yes.
read -r -p "Enable shell completions? [Y/n] " completions
case "$completions" in
n | N | no | NO | No) completions="no" ;;
*) completions="yes" ;;
esac

# 4. Confirmation; the default (an empty answer) is No.
echo
echo "Ready to install ${product} ${version} into ${dir} (${components})."
read -r -p "Proceed with installation? [y/N] " proceed
case "$proceed" in
y | Y | yes | YES | Yes) ;;
*)
	echo "Installation cancelled."
	exit 1
	;;
esac

# 5. Licence; only a full "yes" or "no" is accepted.
echo
echo "${product} is distributed under the MIT License."
echo "The full text is in LICENSE after installation."
while :; do
	read -r -p "Do you accept the license? (yes/no) " accept
	case "$accept" in
	yes) break ;;
	no)
		echo "You must accept the license to install ${product}."
		exit 1
		;;
	*) echo "Please answer yes or no." ;;
	esac
done

# 6. "Install" (pretend) and summarise.
echo
for c in $components; do
	printf 'Installing %s ... ' "$c"
	sleep 0.05
	echo "done"
done
echo
echo "Installation summary"
echo "  product:     ${product} ${version}"
echo "  directory:   ${dir}"
echo "  components:  ${components}"
echo "  completions: ${completions}"
echo "  license:     accepted"
echo "Installation complete."
exit 0
