;;; grounded.el --- grounded language server for Emacs via eglot  -*- lexical-binding: t; -*-

;; Add to your init file (Emacs 29+ ships eglot; older: M-x package-install RET eglot):
;;   (load "/path/to/editors/emacs/grounded.el")
;;
;; Nothing here depends on progress reports or code-action resolve (eglot 1.9 has
;; neither): diagnostics are pushed, and every code action carries its edit.

;;; Code:

(require 'eglot)

(defgroup grounded nil
  "Check engine scripts against the engine's documentation."
  :group 'tools)

(defcustom grounded-command '("grounded" "serve")
  "The command that starts the grounded language server."
  :type '(repeat string))

(defcustom grounded-settings '(:debounceMs 50 :dryRun (:enabled t :budgetMs 2000))
  "Settings sent as initializationOptions and answered to workspace/configuration.
Keys: :docs (corpus path), :debounceMs, :dryRun (:enabled :budgetMs :idleMs)."
  :type 'plist)

(defclass grounded-server (eglot-lsp-server) ()
  :documentation "The grounded language server.")

(cl-defmethod eglot-initialization-options ((_server grounded-server))
  grounded-settings)

(add-to-list 'eglot-server-programs
             `((js-mode js-ts-mode javascript-mode) . (grounded-server . ,grounded-command)))

;; M-x grounded-ask: prompts for a request and sends it, with the file and the region
;; (or the current line), to grounded.askAgent. The server answers at once (eglot would
;; block until it does); edits arrive as workspace edits, the end as a message.
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

(defun grounded-cancel ()
  "Cancel the grounded agent's running turn."
  (interactive)
  (jsonrpc-request (eglot--current-server-or-lose) :workspace/executeCommand
                   (list :command "grounded.cancelAgent"
                         :arguments (if grounded--last-turn
                                        (vector (list :turn grounded--last-turn))
                                      []))))

;; workspace/configuration is answered from this (section "grounded"). The alist form
;; is the one eglot 1.9 reads; later versions read it too.
(setq-default eglot-workspace-configuration
              `((:grounded . ,grounded-settings)))

(provide 'grounded)
;;; grounded.el ends here
