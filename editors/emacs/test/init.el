(require 'eglot)
(add-to-list 'load-path "~/src/rulelens/editors/emacs") ; the folder of rulelens.el
(require 'rulelens)                     ; rulelens-mode for .rules files, and Eglot's server entry
(setq rulelens-server-command '("rulelens" "serve")) ; or an absolute path to the server
(add-hook 'rulelens-mode-hook #'eglot-ensure)
(setq-default eglot-workspace-configuration
              '(:rulelens (:training (:epochs 10))))
