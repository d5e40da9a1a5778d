;;; rulelens.el --- Major mode for rulelens rules files, with Eglot  -*- lexical-binding: t; -*-

;; Version: 0.1
;; Package-Requires: ((emacs "28.1"))
;; Keywords: languages

;;; Commentary:

;; `rulelens-mode' edits rulelens `.rules' files (docs/rules.md): `#' comments, quoted
;; literals, and font-lock for the token classes of the TextMate grammar
;; (grammars/rules.tmLanguage.json):
;;
;;   keyword.control.{default,corpus,pattern,words,from}  font-lock-keyword-face
;;   entity.name.type.label                    font-lock-type-face
;;   entity.name.function.pattern              font-lock-function-name-face
;;   variable.other.corpus                     font-lock-variable-name-face
;;   variable.other.constant.word-list (@NAME) font-lock-constant-face
;;   constant.language.wildcard ($ % &)        font-lock-constant-face
;;   keyword.operator (* + ? | { } <- : =)     font-lock-builtin-face
;;   constant.numeric (counts in { })          font-lock-constant-face
;;   string.quoted.double                      font-lock-string-face (the syntax table)
;;   comment.line.number-sign                  font-lock-comment-face (the syntax table)
;;
;; Everything else (diagnostics, hovers, code actions, symbols, semantic checks) comes
;; from the language server `rulelens serve' through Eglot: loading this file registers
;; it in `eglot-server-programs' for `rulelens-mode', with the language id `rules'.
;; docs/editors.md gives the configuration that editors/emacs/test.sh tests.

;;; Code:

(defgroup rulelens nil
  "Rulelens rules files and their language server."
  :group 'languages
  :prefix "rulelens-")

(defcustom rulelens-server-command '("rulelens" "serve")
  "The language server's command line: the program, then its arguments.
Eglot reads it each time it starts the server."
  :type '(repeat string))

(defconst rulelens--name "[A-Za-z_][A-Za-z0-9_.-]*"
  "A label, pattern, corpus or word-list name.")

(defconst rulelens--font-lock-keywords
  `(;; default LABEL, corpus NAME "PATH", pattern NAME = REGEX: the keyword is one only
    ;; when a name or the end of the line follows, not `:' or `<-' (a label named so).
    (,(concat "^[ \t\uFEFF]*\\(default\\)\\(?:[ \t]+\\(" rulelens--name "\\)\\|[ \t]*\\(?:#\\|$\\)\\)")
     (1 font-lock-keyword-face) (2 font-lock-type-face nil t))
    (,(concat "^[ \t\uFEFF]*\\(corpus\\)\\(?:[ \t]+\\(" rulelens--name "\\)\\|[ \t]*\\(?:#\\|$\\)\\)")
     (1 font-lock-keyword-face) (2 font-lock-variable-name-face nil t))
    (,(concat "^[ \t\uFEFF]*\\(pattern\\)\\(?:[ \t]+\\(" rulelens--name "\\)[ \t]*\\(=\\)?\\|[ \t]*\\(?:#\\|$\\)\\)")
     (1 font-lock-keyword-face) (2 font-lock-function-name-face nil t)
     (3 font-lock-builtin-face nil t))
    ;; words NAME = ( … ) and words NAME from "PATH".
    (,(concat "^[ \t\uFEFF]*\\(words\\)\\(?:[ \t]+\\(" rulelens--name "\\)[ \t]*\\(?:\\(=\\)\\|\\(from\\)\\_>\\)?\\|[ \t]*\\(?:#\\|$\\)\\)")
     (1 font-lock-keyword-face) (2 font-lock-constant-face nil t)
     (3 font-lock-builtin-face nil t) (4 font-lock-keyword-face nil t))
    ;; LABEL: REGEX and LABEL <- FORMULA.
    (,(concat "^[ \t\uFEFF]*\\(" rulelens--name "\\)[ \t]*\\(:\\|<-\\)")
     (1 font-lock-type-face) (2 font-lock-builtin-face))
    ;; Inside regexes and formulas: counts, wildcards, operators.
    ("{[ \t]*\\([0-9]+\\)[ \t]*\\(?:,[ \t]*\\([0-9]+\\)[ \t]*\\)?}"
     (1 font-lock-constant-face) (2 font-lock-constant-face nil t))
    (,(concat "@" rulelens--name) . font-lock-constant-face)
    ("[$%&]" . font-lock-constant-face)
    ("[*+?|{}]" . font-lock-builtin-face))
  "What `rulelens-mode' highlights beyond comments and strings.")

(defvar rulelens-mode-syntax-table
  (let ((table (make-syntax-table)))
    (modify-syntax-entry ?# "<" table)
    (modify-syntax-entry ?\n ">" table)
    (modify-syntax-entry ?\" "\"" table)
    (modify-syntax-entry ?\\ "\\" table)
    (dolist (char '(?_ ?. ?- ?'))
      (modify-syntax-entry char "_" table))
    (dolist (char '(?$ ?% ?& ?* ?+ ?? ?| ?! ?: ?= ?< ?{ ?} ?,))
      (modify-syntax-entry char "." table))
    table)
  "Syntax table of `rulelens-mode'.
`#' starts a comment to the end of the line; `\"' quotes a literal.")

;;;###autoload
(define-derived-mode rulelens-mode prog-mode "Rules"
  "Major mode for rulelens rules files (`.rules').
Diagnostics, hovers, code actions and symbols come from `rulelens serve'
through Eglot (`eglot-ensure' in `rulelens-mode-hook')."
  (setq-local comment-start "# ")
  (setq-local comment-start-skip "#+[ \t]*")
  (setq-local comment-end "")
  (setq-local font-lock-defaults '(rulelens--font-lock-keywords)))

;;;###autoload
(add-to-list 'auto-mode-alist '("\\.rules\\'" . rulelens-mode))

(defun rulelens-eglot-contact (&rest _)
  "The server's command line for Eglot: `rulelens-server-command'.
Eglot passes whether it was called interactively (and, from Eglot 1.15, the
project), which do not matter here."
  rulelens-server-command)

(with-eval-after-load 'eglot
  (defvar eglot-server-programs)
  (add-to-list 'eglot-server-programs
               '((rulelens-mode :language-id "rules") . rulelens-eglot-contact)))

(provide 'rulelens)
;;; rulelens.el ends here
