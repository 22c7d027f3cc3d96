/work/main/userspace/lib/ctl.o: /work/main/userspace/lib/ctl.c \
 /work/main/userspace/include/nanograph.h
/work/main/userspace/include/nanograph.h:
