;;; rulelens-eglot-test.el --- End-to-end test of rulelens.el with Eglot  -*- lexical-binding: t; -*-

;;; Commentary:

;; Run by editors/emacs/test.sh in `emacs --batch', in a temporary copy of examples/sms:
;; test/init.el (the configuration docs/editors.md gives) is loaded, then sms.rules is
;; opened, and Eglot, Flymake, ElDoc and imenu are driven against the real `rulelens serve'.
;;
;; Each step waits with `accept-process-output' (which runs Eglot's process filters and
;; timers in batch mode; idle timers, such as the one that sends Eglot's `didChange', are
;; run by `rulelens-test--run-idle-timers') until a condition holds, under one overall
;; deadline, and fails naming what did not arrive.  The first failing step ends the run: Emacs exits 0 when
;; every step passed and 1 otherwise.
;;
;; Environment: RULELENS_TEST_PLUGIN (editors/emacs), RULELENS_TEST_DIR (the temporary
;; folder, with sms/ in it), RULELENS_TEST_SERVER (the server), RULELENS_TEST_DEADLINE
;; (seconds for the whole run, default 60).

;;; Code:

(require 'cl-lib)
(require 'subr-x)

(defvar rulelens-test--plugin (getenv "RULELENS_TEST_PLUGIN"))
(defvar rulelens-test--dir (getenv "RULELENS_TEST_DIR"))
(defvar rulelens-test--server (getenv "RULELENS_TEST_SERVER"))
(defvar rulelens-test--deadline
  (string-to-number (or (getenv "RULELENS_TEST_DEADLINE") "60")))
(defvar rulelens-test--started (float-time))

;; 1-based lines of examples/sms/sms.rules.
(defconst rulelens-test--redundant-lines '(18 22 28 29 30 41 44 49)
  "The lines of sms.rules' W0307 (redundant rule), as `rulelens check' has them.")
(defconst rulelens-test--never-matching-line 17
  "A line with W0501 (never matches on train), from the corpus analysis on open.")
(defconst rulelens-test--pattern-line 18
  "spam: $* won $* cash $* prize $*")

(defvar rulelens-test--state nil "What one step leaves for the next (a plist).")

(defun rulelens-test--elapsed () (- (float-time) rulelens-test--started))

(defun rulelens-test--say (format-string &rest args)
  "Print a line on standard error, unbuffered and in order with Eglot's messages."
  (message "%s" (apply #'format format-string args)))

(defun rulelens-test--fail (format-string &rest args)
  (signal 'rulelens-test-failure (list (apply #'format format-string args))))
(define-error 'rulelens-test-failure "test failure")

(defun rulelens-test--check (condition format-string &rest args)
  (unless condition (apply #'rulelens-test--fail format-string args)))

(defun rulelens-test--run-idle-timers (idle-since ran)
  "Run the idle timers due when idle since IDLE-SINCE, except those in RAN.
Return RAN with them added.  An Emacs waiting for input runs each idle
timer once its delay has passed (Eglot sends `didChange' from one); batch
mode never waits for input, so this does it in its place."
  (let ((idle (- (float-time) idle-since)))
    (dolist (timer (copy-sequence timer-idle-list))
      (when (and (not (memq timer ran))
                 (memq timer timer-idle-list)
                 (>= idle (float-time (timer--time timer))))
        (push timer ran)
        (timer-event-handler timer))))
  ran)

(defun rulelens-test--wait-for (what condition &optional describe-last)
  "Wait until CONDITION returns non-nil, and return its value.
Fail at the deadline, naming WHAT, with (DESCRIBE-LAST) when given.
While waiting, Emacs is idle: process output, timers and idle timers run."
  (let ((idle-since (float-time)) ran value)
    (while (not (setq value (funcall condition)))
      (when (>= (rulelens-test--elapsed) rulelens-test--deadline)
        (rulelens-test--fail "timed out after %.0f s waiting for %s%s"
                             (rulelens-test--elapsed) what
                             (if describe-last (concat "; last: " (funcall describe-last)) "")))
      (accept-process-output nil 0.05)
      (setq ran (rulelens-test--run-idle-timers idle-since ran)))
    value))

(defun rulelens-test--goto (line column)
  "Move to 1-based LINE and 0-based COLUMN."
  (goto-char (point-min))
  (forward-line (1- line))
  (forward-char column))

(defun rulelens-test--diagnostics ()
  "The current buffer's Flymake diagnostics as (CODE LINE TEXT), by line."
  (sort (mapcar (lambda (d)
                  (let ((text (flymake-diagnostic-text d)))
                    (list (and (string-match "\\[\\([EWI][0-9]\\{4\\}\\)\\]" text)
                               (match-string 1 text))
                          (line-number-at-pos (flymake-diagnostic-beg d))
                          text)))
                (flymake-diagnostics))
        (lambda (a b) (< (nth 1 a) (nth 1 b)))))

(defun rulelens-test--lines-with (code)
  (mapcar (lambda (d) (nth 1 d))
          (cl-remove-if-not (lambda (d) (equal (car d) code)) (rulelens-test--diagnostics))))

(defun rulelens-test--describe-diagnostics ()
  (format "%S" (mapcar (lambda (d) (format "%s@%d" (car d) (nth 1 d))) (rulelens-test--diagnostics))))

(defun rulelens-test--face-at (line column)
  (save-excursion
    (rulelens-test--goto line column)
    (let ((face (get-text-property (point) 'face)))
      (if (listp face) (car face) face))))

(defun rulelens-test--imenu-leaves (index)
  "The (NAME . POSITION) entries of the imenu INDEX, at any depth."
  (cl-loop for entry in index
           if (imenu--subalist-p entry)
           append (rulelens-test--imenu-leaves (cdr entry))
           else if (not (equal entry imenu--rescan-item))
           collect (cons (car entry)
                         (let ((position (cdr entry)))
                           (cond ((markerp position) (marker-position position))
                                 ((overlayp position) (overlay-start position))
                                 (t position))))))

(defconst rulelens-test--steps
  (list
   (cons
    "init.el (the configuration of docs/editors.md) loads rulelens.el and registers the server"
    (lambda ()
      ;; The checkout's rulelens.el, wherever the configuration's load-path points.
      (add-to-list 'load-path rulelens-test--plugin)
      (load (expand-file-name "test/init.el" rulelens-test--plugin) nil t)
      (rulelens-test--check (featurep 'rulelens) "rulelens is not loaded")
      (rulelens-test--check (equal (alist-get "\\.rules\\'" auto-mode-alist nil nil #'equal) 'rulelens-mode)
                            "auto-mode-alist does not map .rules to rulelens-mode")
      (rulelens-test--check (assoc '(rulelens-mode :language-id "rules") eglot-server-programs)
                            "no rulelens-mode entry in eglot-server-programs: %S" (car eglot-server-programs))
      (rulelens-test--check (memq #'eglot-ensure rulelens-mode-hook) "eglot-ensure is not on rulelens-mode-hook")
      ;; The test's own server, a model cache in the temporary folder, and no training.
      (setq rulelens-server-command (list rulelens-test--server "serve"))
      (setq-default eglot-workspace-configuration
                    `(:rulelens (:training (:epochs 10 :enabled :json-false
                                            :modelCache ,(expand-file-name "cache" rulelens-test--dir)))))))
   (cons
    "sms.rules opens in rulelens-mode, highlighted by the grammar's token classes"
    (lambda ()
      (find-file (expand-file-name "sms/sms.rules" rulelens-test--dir))
      (setq rulelens-test--state (list :buffer (current-buffer) :text (buffer-string)))
      (rulelens-test--check (eq major-mode 'rulelens-mode) "major mode is %s" major-mode)
      (font-lock-ensure)
      ;; (line column face what)
      (dolist (expected '((11 0 font-lock-keyword-face "`default'")
                          (11 8 font-lock-type-face "`ham' after default")
                          (12 0 font-lock-keyword-face "`corpus'")
                          (12 7 font-lock-variable-name-face "the corpus name `train'")
                          (12 13 font-lock-string-face "the corpus path")
                          (15 0 font-lock-type-face "the label `ham'")
                          (15 5 font-lock-constant-face "the wildcard `$'")
                          (15 6 font-lock-builtin-face "the quantifier `*'")
                          (15 9 nil "the word `thanks'")
                          (15 21 font-lock-comment-delimiter-face "the comment's `#'")
                          (15 24 font-lock-comment-face "the comment")
                          (16 16 font-lock-builtin-face "the alternation `|'")
                          (74 9 font-lock-string-face "the quoted literal `\"?\"'")))
        (pcase-let ((`(,line ,column ,face ,what) expected))
          (let ((actual (rulelens-test--face-at line column)))
            (rulelens-test--check (eq actual face) "%s (line %d, column %d) has face %S, expected %S"
                                  what line column actual face))))))
   (cons
    "Eglot connects through eglot-ensure on rulelens-mode-hook"
    (lambda ()
      ;; eglot-ensure connects from `post-command-hook', which batch mode never runs by itself.
      (run-hooks 'post-command-hook)
      (let ((server (rulelens-test--wait-for "Eglot to manage sms.rules"
                                             (lambda () (and (eglot-managed-p) (eglot-current-server))))))
        (setq rulelens-test--state (plist-put rulelens-test--state :server server))
        (let ((pid (process-id (jsonrpc--process server))))
          (setq rulelens-test--state (plist-put rulelens-test--state :pid pid))
          (with-temp-file (expand-file-name "server.pid" rulelens-test--dir)
            (insert (number-to-string pid))))
        (let ((language-id (if (fboundp 'eglot--language-id) ; Eglot before 1.15
                               (eglot--language-id server)
                             (cdr (assq 'rulelens-mode (eglot--languages server))))))
          (rulelens-test--check (equal language-id "rules") "language id %S, expected \"rules\"" language-id))
        (rulelens-test--check flymake-mode "Eglot did not turn on flymake-mode"))))
   (cons
    "Flymake shows W0307 on the redundant rules' lines, and W0501 from the corpus analysis"
    (lambda ()
      (rulelens-test--wait-for (format "W0307 on lines %S" rulelens-test--redundant-lines)
                               (lambda () (equal (rulelens-test--lines-with "W0307") rulelens-test--redundant-lines))
                               #'rulelens-test--describe-diagnostics)
      (rulelens-test--wait-for (format "W0501 on line %d" rulelens-test--never-matching-line)
                               (lambda () (memq rulelens-test--never-matching-line (rulelens-test--lines-with "W0501")))
                               #'rulelens-test--describe-diagnostics)
      (rulelens-test--check (null (rulelens-test--lines-with "E0106")) "an unexpected E0106")
      (let ((text (nth 2 (cl-find-if (lambda (d) (and (equal (car d) "W0307") (= (nth 1 d) 18)))
                                     (rulelens-test--diagnostics)))))
        (rulelens-test--check (string-match-p "redundant.*`spam` rule of line 57" text)
                              "the W0307 of line 18 says: %s" text))))
   (cons
    "ElDoc's hover on a pattern shows its label, DFA size and corpus figures"
    (lambda ()
      (rulelens-test--goto rulelens-test--pattern-line 12)
      (let (hover)
        (rulelens-test--check (eglot-hover-eldoc-function
                               (lambda (info &rest _) (setq hover (or info 'empty))))
                              "eglot-hover-eldoc-function did not ask the server")
        (rulelens-test--wait-for "the hover of line 18" (lambda () hover))
        (rulelens-test--check (stringp hover) "an empty hover")
        ;; Words of the hover, not its Markdown: a plain-text hover must pass too.
        (dolist (needle '("`spam` rule of line 18" "4 DFA states" "won $* cash $* prize"))
          (rulelens-test--check (string-search needle hover) "no %S in the hover:\n%s" needle hover))
        (dolist (regexp '("train[ |\t]+7[ |\t]" "dev[ |\t]+3[ |\t]" "precision"))
          (rulelens-test--check (string-match-p regexp hover) "no %S in the hover:\n%s" regexp hover))
        ;; Without markdown-mode Eglot asks for plain text, with it Eglot renders Markdown:
        ;; either way no Markdown source is shown.
        (rulelens-test--check (not (string-search "**" hover))
                              "Markdown source in the hover:\n%s" hover))))
   (cons
    "the quick fix of line 18's W0307 removes the rule, and Flymake follows"
    (lambda ()
      (rulelens-test--goto rulelens-test--pattern-line 0)
      (let* ((actions (eglot-code-actions (point) (point)))
             (titles (mapcar (lambda (a) (plist-get a :title)) actions))
             (quickfixes (cl-remove-if-not (lambda (a) (equal (plist-get a :kind) "quickfix")) actions)))
        (rulelens-test--check (member "Remove the rule of line 18" titles) "no \"Remove the rule of line 18\" in %S" titles)
        (rulelens-test--check (= (length quickfixes) 1) "expected one quick fix at line 18, got %S"
                              (mapcar (lambda (a) (plist-get a :title)) quickfixes)))
      ;; As M-x eglot-code-actions asked for the kind quickfix (C-u): with one quick fix,
      ;; Eglot applies it without a prompt.  (Eglot 1.9's eglot-code-action-quickfix only
      ;; lists the actions: it does not pass `interactive'.)
      (eglot-code-actions (point) nil "quickfix" t)
      (let* ((text (plist-get rulelens-test--state :text))
             (lines (split-string text "\n"))
             (expected (string-join (append (cl-subseq lines 0 17) (nthcdr 18 lines)) "\n")))
        (rulelens-test--check (equal (buffer-string) expected)
                              "the buffer is not sms.rules without line 18; line 18 is now: %s"
                              (save-excursion (rulelens-test--goto 18 0)
                                              (buffer-substring (point) (line-end-position)))))
      (let ((shifted (mapcar #'1- (cdr rulelens-test--redundant-lines))))
        (rulelens-test--wait-for (format "W0307 on lines %S after the edit" shifted)
                                 (lambda () (equal (rulelens-test--lines-with "W0307") shifted))
                                 #'rulelens-test--describe-diagnostics))))
   (cons
    "imenu lists the document symbols: default, the corpora, and each run of rules"
    (lambda ()
      (setq imenu--index-alist nil)
      (let* ((leaves (rulelens-test--imenu-leaves (imenu--make-index-alist t)))
             ;; (LINE . TEXT) of the first rule of each run of one label, from the buffer:
             ;; its entry is named with the rule's text (its first 30 characters here).
             (runs (save-excursion
                     (goto-char (point-min))
                     (cl-loop with previous = nil
                              while (re-search-forward "^\\(ham\\|spam\\):[^#\n]*" nil t)
                              for label = (match-string 1)
                              for text = (string-trim (match-string 0))
                              unless (equal label previous)
                              collect (cons (line-number-at-pos) (substring text 0 (min 30 (length text))))
                              do (setq previous label))))
             (described (lambda () (format "%S" (mapcar (lambda (l) (format "%s@%d" (car l) (line-number-at-pos (cdr l))))
                                                        leaves)))))
        (rulelens-test--check (> (length runs) 20) "only %d runs of rules found in the buffer" (length runs))
        ;; imenu merges entries of one name: each rule and run needs a name of its own.
        (rulelens-test--check (= (length (delete-dups (mapcar #'car leaves))) (length leaves))
                              "imenu entries with the same name in %s" (funcall described))
        (dolist (expected (append '((11 . "default") (12 . "train") (13 . "dev")) runs))
          (rulelens-test--check
           (cl-find-if (lambda (leaf) (and (= (line-number-at-pos (cdr leaf)) (car expected))
                                           (string-prefix-p (cdr expected) (car leaf))))
                       leaves)
           "no imenu entry for %s on line %d in %s" (cdr expected) (car expected) (funcall described))))))
   (cons
    "eglot-shutdown ends the server"
    (lambda ()
      (let* ((server (plist-get rulelens-test--state :server))
             (process (jsonrpc--process server))
             (pid (plist-get rulelens-test--state :pid)))
        ;; Signals an error when the server does not answer `shutdown' within 5 s.  Then
        ;; Eglot sends `exit' and deletes the process at once (Emacs 28's jsonrpc), so the
        ;; log says "Server exited with status 9" whether or not the server would have
        ;; exited by itself.
        (eglot-shutdown server nil 5)
        (rulelens-test--wait-for "the server process to end" (lambda () (not (process-live-p process))))
        (rulelens-test--wait-for (format "process %d to be gone" pid) (lambda () (null (process-attributes pid))))
        (with-current-buffer (plist-get rulelens-test--state :buffer)
          (rulelens-test--check (not (eglot-managed-p)) "sms.rules is still managed by Eglot"))
        (rulelens-test--check (null (eglot-current-server)) "a server is still current")))))
  "The steps, in order: (NAME . FUNCTION).")

(defun rulelens-test-run ()
  "Run the steps; exit Emacs with 0 when all passed, 1 otherwise."
  (let ((passed 0) (failed 0))
    (cl-loop for (name . run) in rulelens-test--steps
             do (condition-case err
                    (progn (funcall run)
                           (cl-incf passed)
                           (rulelens-test--say "ok   %5.1f s  %s" (rulelens-test--elapsed) name))
                  (error
                   (cl-incf failed)
                   (rulelens-test--say "FAIL %5.1f s  %s\n     %s" (rulelens-test--elapsed) name
                                       (replace-regexp-in-string
                                        "\n" "\n     "
                                        (if (eq (car err) 'rulelens-test-failure) (cadr err)
                                          (error-message-string err))))))
             until (> failed 0))
    (let ((skipped (- (length rulelens-test--steps) passed failed)))
      (rulelens-test--say "emacs: %d passed, %d failed%s" passed failed
                          (if (> skipped 0) (format ", %d skipped" skipped) ""))
      ;; After a failure the server may still be talking: end it without running Eglot's
      ;; filters, which would fail inside `kill-emacs' and change the exit status.
      (dolist (process (process-list))
        (set-process-filter process #'ignore)
        (set-process-sentinel process #'ignore)
        (delete-process process))
      (kill-emacs (if (and (zerop failed) (zerop skipped)) 0 1)))))

(rulelens-test-run)

;;; rulelens-eglot-test.el ends here
