#!/bin/sh
# dialog-menu.sh - a setup script that asks its questions with dialog or whiptail
# (the first argument, dialog by default): a menu, a checklist and a yes/no
# question, then prints the answers. It writes nothing. Used by dialog-menu.yaml.
set -u
tool=${1:-dialog}

# Both programs draw on the terminal and write the answer to stderr: swap the two
# so that $( ) catches the answer and the dialog still reaches the terminal.
ask() {
  "$tool" --title "Setup" "$@" 3>&1 1>&2 2>&3
}

theme=$(ask --menu "Pick a colour theme" 14 50 4 \
  1 "Light" 2 "Dark" 3 "High contrast") || { echo "cancelled"; exit 1; }
parts=$(ask --checklist "Components to install (Space ticks)" 14 50 4 \
  docs "Documentation" off tests "Test suite" on examples "Examples" off) || { echo "cancelled"; exit 1; }
if ask --defaultno --yesno "Install now?" 8 40; then install=yes; else install=no; fi

clear
# whiptail quotes each ticked tag; dialog does not.
echo "theme=$theme components=$(echo "$parts" | tr -d '"') install=$install"
