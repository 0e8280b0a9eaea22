;;; grounded.el --- grounded language server for Emacs via eglot  -*- lexical-binding: t; -*-

;; Add to your init file (Emacs 29+ ships eglot; older: M-x package-install RET eglot):
;;   (setq grounded-command '("/abs/path/grounded" "serve"))   ; optional
;;   (load "/path/to/editors/emacs/grounded.el")
;;   (add-hook 'js-mode-hook #'eglot-ensure)
;;
;; `grounded-command' and `grounded-settings' are read when eglot starts the server,
;; not when this file loads, so setting them before or after the `load' both work
;; (the README once set them after the load, and the server kept the defaults).
;;
;; Nothing here depends on progress reports or code-action resolve (eglot 1.9 has
;; neither): diagnostics are pushed, and every code action carries its edit.

;;; Code:

(require 'cl-lib)
(require 'eglot)

(defgroup grounded nil
  "Check engine scripts against the engine's documentation."
  :group 'tools)

(defcustom grounded-command '("grounded" "serve")
  "The command that starts the grounded language server."
  :type '(repeat string))

(defcustom grounded-settings '(:debounceMs 50 :dryRun (:enabled t :budgetMs 2000))
  "Settings sent as initializationOptions and answered to workspace/configuration.
Keys: :docs (corpus path), :debounceMs, :dryRun (:enabled :budgetMs :idleMs),
:agent (:baseUrl :model :apiKeyEnv :allowValidate :transcript)."
  :type 'plist)

(defclass grounded-server (eglot-lsp-server) ()
  :documentation "The grounded language server.")

(cl-defmethod eglot-initialization-options ((_server grounded-server))
  grounded-settings)

(defun grounded--contact (&optional _interactive)
  "The server's contact, read from `grounded-command' when eglot starts it."
  (cons 'grounded-server grounded-command))

(add-to-list 'eglot-server-programs
             '((js-mode js-ts-mode javascript-mode) . grounded--contact))

(defun grounded--configure (server)
  "Answer workspace/configuration (section \"grounded\") from `grounded-settings'.
Run when SERVER is created, so the settings of that moment count. The alist form is
the one eglot 1.9 reads; later versions read it too."
  (when (cl-typep server 'grounded-server)
    (let ((current (default-value 'eglot-workspace-configuration)))
      ;; A user's own function form is left alone: it answers for every server.
      (when (listp current)
        (setq-default eglot-workspace-configuration
                      (cons (cons :grounded grounded-settings)
                            (assq-delete-all :grounded (copy-sequence current))))))))

(add-hook 'eglot-server-initialized-hook #'grounded--configure)

;; M-x grounded-ask: prompts for a request and sends it, with the file and the region
;; (or the current line), to grounded.askAgent. The server answers at once (eglot would
;; block until it does); edits arrive as workspace edits, the end (status and the
;; answer) in the *grounded agent* buffer.
(defvar grounded--last-turn nil "The id of the last agent turn started.")

(defun grounded-ask (request)
  "Ask the grounded agent REQUEST about the current buffer and region."
  (interactive "sAsk grounded agent: ")
  (let* ((server (eglot--current-server-or-lose))
         (beg (if (use-region-p) (region-beginning) (line-beginning-position)))
         (end (if (use-region-p) (region-end) (line-end-position)))
         (arg (list :request request
                    :uri (eglot--path-to-uri (buffer-file-name))
                    :range (list :start (eglot--pos-to-lsp-position beg)
                                 :end (eglot--pos-to-lsp-position end))))
         (r (jsonrpc-request server :workspace/executeCommand
                             (list :command "grounded.askAgent" :arguments (vector arg)))))
    (setq grounded--last-turn (plist-get r :turn))
    (message "grounded agent: turn %s started" grounded--last-turn)))

(cl-defmethod eglot-handle-notification
  ((_server grounded-server) (_method (eql grounded/agentFinished))
   &key turn status reason answer changed transcript &allow-other-keys)
  "Show the end of an agent turn: the answer in the *grounded agent* buffer.
The server's own message says only the status; the answer is what was asked for."
  (let ((files (if (and changed (> (length changed) 0))
                   (mapconcat #'identity (append changed nil) ", ")
                 "none")))
    (with-current-buffer (get-buffer-create "*grounded agent*")
      (let ((inhibit-read-only t))
        (erase-buffer)
        (insert (format "grounded agent: %s (turn %s)\n\n" (or status "finished") turn))
        (insert (or answer "") "\n\n")
        (insert (format "why it ended: %s\nfiles changed: %s\n" (or reason "") files))
        (when transcript
          (insert (format "transcript: %s\n" transcript))))
      (goto-char (point-min))
      (special-mode))
    (display-buffer "*grounded agent*")
    (message "grounded agent: %s; changed: %s (answer in *grounded agent*)"
             (or status "finished") files)))

(defun grounded-cancel ()
  "Cancel the grounded agent's running turn."
  (interactive)
  (jsonrpc-request (eglot--current-server-or-lose) :workspace/executeCommand
                   (list :command "grounded.cancelAgent"
                         :arguments (if grounded--last-turn
                                        (vector (list :turn grounded--last-turn))
                                      []))))

(provide 'grounded)
;;; grounded.el ends here
